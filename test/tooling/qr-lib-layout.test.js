'use strict';

// qr_lib stays a one-way pipeline of small files: a stage reads the stages
// before it and the shared limits, never a later one, and lib.rs alone
// composes them. Read from the source, so a new `use` that points backwards
// fails here before anyone reads the diff.

const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const SRC = path.join(__dirname, '..', '..', 'qr_lib', 'src');
const MAX_LINES = 500;
// The crate's top-level modules in pipeline order; `lib.rs` composes them.
// The shared ones (limits, errors, buffers kept per thread) serve any stage.
const STAGES = ['limits', 'error', 'kept', 'symbol', 'raster', 'png'];
const SHARED = new Set(['limits', 'error', 'kept']);
// png/deflate's files in the order the encoder runs them (equal ranks are
// independent helpers); `mod.rs` composes them and `tests.rs` tests the whole.
const DEFLATE = {
  matching: 0,
  tables: 0,
  tokens: 1,
  parse: 2,
  huffman: 3,
  bit_writer: 3,
  nibble_quads: 4,
  block: 5,
  adler32: 6,
};

function rustFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return rustFiles(full);
    return e.name.endsWith('.rs') ? [full] : [];
  });
}

/** The code of a Rust file without its comments. */
function code(file) {
  return fs.readFileSync(file, 'utf8').replace(/\/\/[^\n]*/g, '');
}

/** The top-level module a file of src/ belongs to, or null for lib.rs. */
function stageOf(file) {
  const rel = path.relative(SRC, file).split(path.sep);
  if (rel.length === 1 && rel[0] === 'lib.rs') return null;
  return rel[0].replace(/\.rs$/, '');
}

describe('qr_lib as a one-way pipeline', () => {
  const files = rustFiles(SRC);

  it('knows every top-level module', () => {
    // Test-only modules (`#[cfg(test)]`, the shared PNG reader) are not stages.
    const modules = [
      ...code(path.join(SRC, 'lib.rs')).matchAll(/^(#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*)?(?:pub\s+)?mod\s+(\w+);/gm),
    ]
      .filter((m) => !m[1])
      .map((m) => m[2]);
    assert.deepEqual([...modules].sort(), [...STAGES].sort());
  });

  it('no stage names a later stage', () => {
    const backwards = [];
    for (const file of files) {
      const own = stageOf(file);
      if (own === null) continue;
      for (const [, used] of code(file).matchAll(/\bcrate::(\w+)/g)) {
        if (!STAGES.includes(used) || used === own || SHARED.has(used)) continue;
        if (STAGES.indexOf(used) > STAGES.indexOf(own))
          backwards.push(`${path.relative(SRC, file)} uses crate::${used}`);
      }
    }
    assert.deepEqual(backwards, []);
  });

  it('no deflate step names a later step', () => {
    const dir = path.join(SRC, 'png', 'deflate');
    const backwards = [];
    for (const [step, rank] of Object.entries(DEFLATE)) {
      // A step's own submodules (parse/line_masks.rs) name the other steps
      // as `super::super::`, and take their step's rank.
      const sub = path.join(dir, step);
      const sources = [[`${step}.rs`, /\bsuper::(\w+)/g]];
      if (fs.existsSync(sub))
        sources.push(...fs.readdirSync(sub).map((f) => [`${step}/${f}`, /\bsuper::super::(\w+)/g]));
      for (const [file, names] of sources) {
        for (const [, used] of code(path.join(dir, file)).matchAll(names)) {
          if (used in DEFLATE && DEFLATE[used] >= rank && used !== step) backwards.push(`${file} uses ${used}`);
        }
      }
    }
    const onDisk = fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name.replace(/\.rs$/, ''))
      .filter((f) => !['mod', 'tests'].includes(f));
    assert.deepEqual(onDisk.sort(), Object.keys(DEFLATE).sort(), 'a new file takes its place in DEFLATE');
    assert.deepEqual(backwards, []);
  });

  it(`no file is over ${MAX_LINES} lines`, () => {
    const long = files
      .map((f) => [path.relative(SRC, f), fs.readFileSync(f, 'utf8').split('\n').length - 1])
      .filter(([, n]) => n > MAX_LINES);
    assert.deepEqual(long, []);
  });
});
