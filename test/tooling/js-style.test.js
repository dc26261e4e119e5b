'use strict';

// The JavaScript held to the Rust's standard. `make lint` runs Biome (format
// and lint, no warning let through) and tsc on the published packages; what
// neither checks is held here: no line over 120 characters, comments and
// strings included, in every JavaScript or TypeScript file written by hand,
// the template's tokenised files too; and what the template renders is
// linted as the repository's own code is.

const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const os = require('node:os');
const { execFileSync, spawnSync } = require('node:child_process');
const { render } = require('../../scaffold/lib/render');
const { spellings } = require('../../scaffold/lib/names');

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

/** Biome's lint (the repository's rules, no formatting) over `dir`: its exit status and what it printed. */
function biomeLint(dir) {
  const config = JSON.parse(fs.readFileSync(path.join(ROOT, 'biome.json'), 'utf8'));
  delete config.$schema;
  delete config.vcs;
  config.files = { includes: ['**/*.js', '**/*.mjs', '**/*.cjs'] };
  // Where a line wraps depends on the name's length: the rendered files are linted, not formatted.
  config.formatter = { enabled: false };
  fs.writeFileSync(path.join(dir, 'biome.json'), JSON.stringify(config));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'commonjs' }));
  const biome = path.join(ROOT, 'node_modules/.bin/biome');
  const run = spawnSync(biome, ['lint', '--error-on-warnings', '--colors=off', '.'], { cwd: dir, encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
}

/** The template rendered for a team's function into a fresh directory. */
function renderedTemplate() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'template-lint-'));
  const values = { ...spellings('csv-to-json'), fromRequire: "'../../src/csv.js'", fromExport: 'csvToJson' };
  for (const which of ['ladder', 'service']) {
    for (const [file, text] of render(which, values)) {
      fs.mkdirSync(path.dirname(path.join(dir, which, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, which, file), text);
    }
  }
  return dir;
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

  it("lints what the template renders by the repository's rules, with no warning", (t) => {
    const dir = renderedTemplate();
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const { status, output } = biomeLint(dir);
    assert.equal(status, 0, output);
    assert.ok(Number(/Checked (\d+) files/.exec(output)?.[1]) >= 10, `the rendered files were not found: ${output}`);
    // The same lint fails a rendered file with a fault in it.
    fs.appendFileSync(path.join(dir, 'ladder/js/server.js'), '\nconst unused = (a, b) => a;\n');
    assert.notEqual(biomeLint(dir).status, 0);
  });
});
