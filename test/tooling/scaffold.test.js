'use strict';

// The scaffold as a team would use it: make a throwaway function, build it,
// run its tests and a quick benchmark, check a broken port is caught, then
// discard it and put the workspace back as it was.
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('../helpers/servers');

const NAME = 'scaffold-ci-check';
const DIR = path.join(ROOT, 'functions', NAME);
const CRATES = ['core', 'cli', 'wasm', 'napi'].map((c) => `scaffold_ci_check_${c}`);
const WORKSPACE_FILES = ['Cargo.toml', 'Cargo.lock'].map((f) => path.join(ROOT, f));

// Without this runner's context, so the function's own `node --test` prints its own report.
const { NODE_TEST_CONTEXT, ...ENV } = process.env;
const npm = (script, ...args) =>
  spawnSync('npm', ['run', script, '--prefix', DIR, ...(args.length ? ['--', ...args] : [])], { cwd: ROOT, encoding: 'utf8', env: ENV });
const ok = (result) => assert.equal(result.status, 0, `${result.stdout}\n${result.stderr}`);

describe('scaffold', { timeout: 10 * 60_000 }, () => {
  let saved;
  before(() => {
    saved = WORKSPACE_FILES.map((f) => fs.readFileSync(f));
    fs.rmSync(DIR, { recursive: true, force: true });
  });
  after(() => {
    fs.rmSync(DIR, { recursive: true, force: true });
    WORKSPACE_FILES.forEach((f, i) => fs.writeFileSync(f, saved[i]));
    const functions = path.join(ROOT, 'functions');
    if (fs.existsSync(functions) && !fs.readdirSync(functions).length) fs.rmdirSync(functions);
  });

  it('refuses a name that is not kebab-case and one whose crates exist', () => {
    const bad = spawnSync(process.execPath, ['scaffold/new.js', 'Word_Count'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /"Word_Count" is not a kebab-case name/);
    const taken = spawnSync(process.execPath, ['scaffold/new.js', 'qr'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(taken.status, 1);
    assert.match(taken.stderr, /crate names taken: qr_cli/);
  });

  it('generates a function that builds, lints clean and passes its own tests', () => {
    const made = spawnSync(process.execPath, ['scaffold/new.js', NAME], { cwd: ROOT, encoding: 'utf8' });
    ok(made);
    assert.match(made.stdout, new RegExp(`npm run bench --prefix functions/${NAME}`));
    ok(npm('build'));
    for (const file of ['napi/index.js', 'napi/index.d.ts', `wasm/pkg/scaffold_ci_check_wasm_bg.wasm`]) {
      assert.ok(fs.existsSync(path.join(DIR, file)), file);
    }
    execFileSync('cargo', ['fmt', '--check', ...CRATES.flatMap((c) => ['-p', c])], { cwd: ROOT });
    execFileSync('cargo', ['clippy', '--quiet', '--all-targets', ...CRATES.flatMap((c) => ['-p', c]), '--', '-D', 'warnings'], { cwd: ROOT, stdio: 'pipe' });
    const tests = npm('test');
    ok(tests);
    // Every tier's parity checks ran and passed.
    // TAP (`ok 3 - tier js`) or spec (`✔ tier js (180ms)`): Node's default reporter depends on its line.
    for (const tier of ['js', 'cli', 'cli-pool', 'wasm', 'napi', 'napi-async']) assert.match(tests.stdout, new RegExp(`^(ok \\d+ - |✔ )tier ${tier}( \\(.*\\))?$`, 'm'));
  });

  it('benchmarks every tier from its configuration', () => {
    const out = path.join(DIR, 'bench-out');
    ok(npm('bench', '--quick', '--no-curves'));
    const { results } = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'));
    assert.deepEqual(results.map((r) => r.tier), ['js', 'cli', 'cli-pool', 'wasm', 'napi', 'napi-async']);
    for (const r of results) {
      assert.ok(r.requestsPerSecond > 0, r.tier);
      assert.equal(r.errors + r.non2xx, 0, r.tier);
    }
    assert.match(fs.readFileSync(path.join(out, 'report.md'), 'utf8'), new RegExp(`^# ${NAME} tiers: benchmark report$`, 'm'));
  });

  it('catches a Rust port that drifts from the JS reference', () => {
    // The port lower-cases; break it the way a port goes wrong, rebuild, and the parity test must fail.
    const lib = path.join(DIR, 'core/src/lib.rs');
    const source = fs.readFileSync(lib, 'utf8');
    assert.ok(source.includes('b.to_ascii_lowercase()'));
    fs.writeFileSync(lib, source.replace('b.to_ascii_lowercase()', 'b'));
    ok(npm('build'));
    const parity = spawnSync(process.execPath, ['--test', '--test-reporter=tap', 'test/'], { cwd: DIR, encoding: 'utf8', env: ENV });
    assert.notEqual(parity.status, 0);
    for (const tier of ['cli', 'cli-pool', 'wasm', 'napi', 'napi-async']) assert.match(parity.stdout, new RegExp(`^not ok \\d+ - tier ${tier}$`, 'm'));
    assert.match(parity.stdout, /^ok \d+ - tier js$/m);
  });
});
