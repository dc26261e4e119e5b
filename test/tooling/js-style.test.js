'use strict';

// The JavaScript held to the Rust's standard. `make lint` runs Biome (format
// and lint, no warning let through) and tsc on the published packages; what
// neither checks is held here: no line over 120 characters, comments and
// strings included, in every JavaScript or TypeScript file written by hand,
// the template's tokenised files too.

const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..', '..');
const MAX_COLUMNS = 120;
// Written by `napi build`, not by hand (napi-rs's own template leaves them unlinted too).
const GENERATED = new Set(['qr_napi/index.js', 'qr_napi/index.d.ts']);

function handWrittenScripts() {
  return execFileSync('git', ['ls-files', '-z', '*.js', '*.mjs', '*.cjs', '*.ts', '*.mts'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((file) => file && !GENERATED.has(file) && fs.existsSync(path.join(ROOT, file)));
}

/** `file:line (columns)` for each line of `text` wider than MAX_COLUMNS characters. */
function longLines(file, text) {
  return text
    .split('\n')
    .map((line, i) => ({ at: `${file}:${i + 1} (${[...line].length})`, columns: [...line].length }))
    .filter(({ columns }) => columns > MAX_COLUMNS)
    .map(({ at }) => at);
}

describe('JavaScript style', () => {
  it('counts a line by its characters, the 121st over the bound', () => {
    assert.deepEqual(longLines('a.js', `${'x'.repeat(120)}\n${'é'.repeat(120)}`), []);
    assert.deepEqual(longLines('a.js', `ok\n// ${'x'.repeat(118)}`), ['a.js:2 (121)']);
  });

  it(`has no line over ${MAX_COLUMNS} characters in a file written by hand`, () => {
    const files = handWrittenScripts();
    assert.ok(files.length > 100, `${files.length} files`);
    const long = files.flatMap((file) => longLines(file, fs.readFileSync(path.join(ROOT, file), 'utf8')));
    assert.deepEqual(long, [], 'wrap the comment, or split the string into parts');
  });
});
