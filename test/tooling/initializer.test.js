'use strict';

// create-rust-ladder's decisions about a project, without running it:
// what package.json gains and how it is written, what a directory is, how
// --from is read. test/tooling/team.test.js runs the initializer itself.
const { describe, it, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createRequire } = require('node:module');
const { kindOf, parseFrom, additions, withAdditions } = require('../../scaffold/lib/project');
const { plan, write } = require('../../scaffold/bin');
const { spellings } = require('../../scaffold/lib/names');

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'initializer-'));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('create-rust-ladder: the project', () => {
  it('adds only what package.json lacks, in either dependency section', () => {
    const source = { file: 'src/count.js', exportName: 'wordCount' };
    const adds = additions(
      { dependencies: { express: '^4.21.0' }, devDependencies: { 'tier-adapters': 'file:x.tgz' } },
      spellings('word-count'),
      source,
    );
    assert.deepEqual(Object.keys(adds), ['devDependencies', 'scripts']);
    assert.deepEqual(Object.keys(adds.devDependencies), ['tier-bench', '@napi-rs/cli']);
    assert.deepEqual(Object.keys(adds.scripts), [
      'word-count:profile',
      'word-count:build',
      'word-count:test',
      'word-count:bench',
    ]);
    assert.match(
      adds.scripts['word-count:profile'],
      /^tier-bench-profile --config rust\/word-count\/bench\.config\.js --tier js --function src\/count\.js#wordCount /,
    );
    assert.match(adds.scripts['word-count:test'], /-p word_count_core -p word_count_cli -p word_count_ffi && /);
  });

  it('refuses a script name that is taken', () => {
    assert.throws(
      () =>
        additions({ scripts: { 'word-count:bench': 'x' } }, spellings('word-count'), {
          file: 'src/count.js',
          exportName: 'wordCount',
        }),
      /^Error: package\.json has script word-count:bench already$/,
    );
  });

  it('writes package.json in its own indentation, its keys where they were', () => {
    const text = '{\n\t"name": "svc",\n\t"scripts": {\n\t\t"start": "node ."\n\t},\n\t"type": "module"\n}\n';
    const out = withAdditions(text, { scripts: { 'a:build': 'b' }, devDependencies: { x: '^1.0.0' } });
    assert.equal(
      out,
      '{\n\t"name": "svc",\n\t"scripts": {\n\t\t"start": "node .",\n\t\t"a:build": "b"\n\t},\n' +
        '\t"type": "module",\n\t"devDependencies": {\n\t\t"x": "^1.0.0"\n\t}\n}\n',
    );
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
    assert.deepEqual(parseFrom('./src/render.js#render', path.join(tmp, 'npm')), {
      file: 'src/render.js',
      exportName: 'render',
    });
    assert.throws(() => parseFrom('src/render.js', path.join(tmp, 'npm')), /say which export/);
    assert.throws(() => parseFrom('src/render.js#2d', path.join(tmp, 'npm')), /say which export/);
  });

  it('spells a name for Rust and JS, and refuses one that is not kebab-case', () => {
    assert.deepEqual(spellings('csv-to-json2'), {
      name: 'csv-to-json2',
      snake: 'csv_to_json2',
      camel: 'csvToJson2',
      Pascal: 'CsvToJson2',
    });
    for (const bad of ['Word', 'word_count', 'word--count', '-word', '9lives'])
      assert.throws(() => spellings(bad), /is not a kebab-case name/, bad);
  });
});

describe('create-rust-ladder: what it writes', () => {
  /** An npm project holding `file`, which exports `exportName`. */
  function npmProject(name, file, exportName) {
    const dir = fs.mkdtempSync(path.join(tmp, `${name}-`));
    fs.writeFileSync(path.join(dir, 'package.json'), '{\n  "name": "svc"\n}\n');
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), `exports.${exportName} = (s) => s.toUpperCase();\n`);
    return dir;
  }

  it('refuses a Rust or JavaScript keyword as a name, in one line', () => {
    for (const [word, pattern] of [
      ['match', /a Rust keyword \(match\)/],
      ['type', /a Rust keyword/],
      ['new', /a JavaScript reserved word \(new\)/],
      ['do', /a Rust keyword \(do\) and a JavaScript reserved word \(do\)/],
      // What the generated code binds itself: `pub fn core_function` beside its alias, `function module`.
      ['core-function', /a name the generated Rust uses itself \(core_function\)/],
      ['module', /a name every CommonJS module binds \(module\)/],
    ]) {
      assert.throws(
        () => spellings(word),
        (err) => pattern.test(err.message) && !err.message.includes('\n'),
        word,
      );
    }
    // Only a whole identifier is a keyword: these build.
    for (const fine of ['match-text', 'new-id', 'types', 'r-type']) assert.equal(spellings(fine).name, fine);
  });

  it("escapes the original's path in the generated require, quotes and backslashes included", () => {
    const file = 'src/it\'s a \\ "tricky" one.js';
    const dir = npmProject('escape', file, 'shout');
    const made = plan({ name: 'shout-it', from: `${file}#shout`, dir });
    write(dir, made);
    const reference = path.join(dir, 'rust/shout-it/js/reference.js');
    const line = fs
      .readFileSync(reference, 'utf8')
      .split('\n')
      .find((l) => l.includes(': original } = require('));
    // The generated line, run as the generated module would run it.
    const original = new Function('require', `${line}\nreturn original;`)(createRequire(reference));
    assert.equal(original('abc'), 'ABC');
  });

  it('leaves nothing behind when a write fails part way', () => {
    const dir = npmProject('atomic', 'src/f.js', 'f');
    const made = plan({ name: 'half-made', from: 'src/f.js#f', dir });
    const pkgBefore = fs.readFileSync(path.join(dir, 'package.json'), 'utf8');
    // A file the plan cannot write: its directory is one of the files already written.
    made.files.set('rust/half-made/js/reference.js/inside.js', 'x');
    assert.throws(() => write(dir, made), /ENOTDIR|EEXIST/);
    assert.deepEqual(fs.readdirSync(dir).sort(), ['package.json', 'src']);
    assert.equal(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'), pkgBefore);
    // So the next run is not refused for a half-made rust/NAME.
    made.files.delete('rust/half-made/js/reference.js/inside.js');
    write(dir, made);
    assert.ok(fs.existsSync(path.join(dir, 'rust/half-made/core/src/lib.rs')));
  });

  it('runs no tool in the project: a rust-toolchain.toml and .cargo/config.toml there are never read', () => {
    const dir = npmProject('hostile', 'src/f.js', 'f');
    // Were cargo or rustup run in the project, these would run `touch`.
    const ran = path.join(dir, 'RAN');
    fs.writeFileSync(
      path.join(dir, 'rust-toolchain.toml'),
      `[toolchain]\npath = "${path.join(dir, 'evil-toolchain')}"\n`,
    );
    fs.mkdirSync(path.join(dir, 'evil-toolchain/bin'), { recursive: true });
    for (const tool of ['cargo', 'rustfmt', 'cargo-fmt', 'rustc']) {
      fs.writeFileSync(path.join(dir, 'evil-toolchain/bin', tool), `#!/bin/sh\ntouch '${ran}'\n`, { mode: 0o755 });
    }
    fs.mkdirSync(path.join(dir, '.cargo'));
    fs.writeFileSync(path.join(dir, '.cargo/config.toml'), `[alias]\nfmt = ["run", "--manifest-path", "/dev/null"]\n`);
    const bin = path.join(__dirname, '../../scaffold/bin.js');
    const result = require('node:child_process').spawnSync(
      process.execPath,
      [bin, 'no-tools', '--from', 'src/f.js#f', '--yes', '--dir', dir],
      { encoding: 'utf8' },
    );
    assert.equal(result.status, 0, result.stderr);
    assert.ok(fs.existsSync(path.join(dir, 'rust/no-tools/Cargo.toml')));
    assert.ok(!fs.existsSync(ran), 'a tool ran in the project');
  });
});
