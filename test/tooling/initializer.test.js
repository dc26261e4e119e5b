'use strict';

// create-rust-ladder's decisions about a project, without running it:
// what package.json gains and how it is written, what a directory is, how
// --from is read. test/tooling/team.test.js runs the initializer itself.
const { describe, it, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { kindOf, parseFrom, additions, withAdditions } = require('../../scaffold/lib/project');
const { spellings } = require('../../scaffold/lib/names');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'initializer-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('create-rust-ladder: the project', () => {
  it('adds only what package.json lacks, in either dependency section', () => {
    const source = { file: 'src/count.js', exportName: 'wordCount' };
    const adds = additions({ dependencies: { express: '^4.21.0' }, devDependencies: { 'tier-adapters': 'file:x.tgz' } }, spellings('word-count'), source);
    assert.deepEqual(Object.keys(adds), ['devDependencies', 'scripts']);
    assert.deepEqual(Object.keys(adds.devDependencies), ['tier-bench', '@napi-rs/cli']);
    assert.deepEqual(Object.keys(adds.scripts), ['word-count:profile', 'word-count:build', 'word-count:test', 'word-count:bench']);
    assert.match(adds.scripts['word-count:profile'], /^tier-bench-profile --config rust\/word-count\/bench\.config\.js --tier js --function src\/count\.js#wordCount /);
    assert.match(adds.scripts['word-count:test'], /-p word_count_core -p word_count_cli -p word_count_ffi && /);
  });

  it('refuses a script name that is taken', () => {
    assert.throws(() => additions({ scripts: { 'word-count:bench': 'x' } }, spellings('word-count'), { file: 'src/count.js', exportName: 'wordCount' }), /^Error: package\.json has script word-count:bench already$/);
  });

  it("writes package.json in its own indentation, its keys where they were", () => {
    const text = '{\n\t"name": "svc",\n\t"scripts": {\n\t\t"start": "node ."\n\t},\n\t"type": "module"\n}\n';
    const out = withAdditions(text, { scripts: { 'a:build': 'b' }, devDependencies: { x: '^1.0.0' } });
    assert.equal(out, '{\n\t"name": "svc",\n\t"scripts": {\n\t\t"start": "node .",\n\t\t"a:build": "b"\n\t},\n\t"type": "module",\n\t"devDependencies": {\n\t\t"x": "^1.0.0"\n\t}\n}\n');
  });

  it('knows an empty directory (a .git aside), an npm project and anything else', () => {
    const dir = (name, files) => {
      const d = path.join(tmp, name);
      fs.mkdirSync(d);
      for (const f of files) fs.mkdirSync(path.join(d, f), { recursive: true });
      return d;
    };
    assert.equal(kindOf(path.join(tmp, 'not-yet')), 'empty');
    assert.equal(kindOf(dir('fresh', ['.git'])), 'empty');
    const npm = dir('npm', []);
    fs.writeFileSync(path.join(npm, 'package.json'), '{}');
    assert.equal(kindOf(npm), 'npm');
    assert.match(kindOf(dir('other', ['src'])), /is neither empty nor an npm project \(no package\.json\)$/);
  });

  it('reads --from as a file of the project and an export it names', () => {
    fs.mkdirSync(path.join(tmp, 'npm/src'));
    fs.writeFileSync(path.join(tmp, 'npm/src/render.js'), 'export function render(s) { return s; }\n');
    assert.deepEqual(parseFrom('./src/render.js#render', path.join(tmp, 'npm')), { file: 'src/render.js', exportName: 'render' });
    assert.throws(() => parseFrom('src/render.js', path.join(tmp, 'npm')), /say which export/);
    assert.throws(() => parseFrom('src/render.js#2d', path.join(tmp, 'npm')), /say which export/);
  });

  it('spells a name for Rust and JS, and refuses one that is not kebab-case', () => {
    assert.deepEqual(spellings('csv-to-json2'), { name: 'csv-to-json2', snake: 'csv_to_json2', camel: 'csvToJson2', Pascal: 'CsvToJson2' });
    for (const bad of ['Word', 'word_count', 'word--count', '-word', '9lives']) assert.throws(() => spellings(bad), /is not a kebab-case name/, bad);
  });
});
