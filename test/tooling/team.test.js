'use strict';

// The toolkit in someone else's service, played as the team would: a fresh
// directory under the OS temp directory holds a small express service
// (test/fixtures/team-service: an ES module project with its own CPU-hot
// function, CSV to JSON, and its own tests) that has never seen this
// repository. It installs the toolkit's tarballs (copied out of dist/ first,
// as a registry would serve them), runs the initializer, ports the function
// (test/fixtures/team-port.rs, what the team writes), builds, runs the
// generated parity test, benchmarks, and breaks the port to see the parity
// test catch it. Nothing it runs is given a path of this repository but the
// node executable and the pinned Bun and Deno (on PATH, as a team installs
// them), and its own files stay byte for byte as they were.
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { isBuiltin } = require('node:module');
const { ROOT, startServer } = require('../helpers/servers');
const { RUNTIMES } = require('../helpers/runtimes');

const NAME = 'csv-to-json';
const LADDER = `rust/${NAME}`;
// ffi where this Node has node:ffi (26 on): the generated test skips it elsewhere.
const TIERS = ['js', 'cli', 'cli-pool', 'wasm', 'napi', 'ffi', 'napi-async'].filter(
  (t) => t !== 'ffi' || isBuiltin('node:ffi'),
);
// The parity test's suites for the ffi library under Bun and Deno (as regexps): each installed one runs.
const LOADERS = { bun: 'bun:ffi', deno: 'Deno\\.dlopen' };
const FFI_RUNTIMES = RUNTIMES.filter((r) => r.installed).map(
  (r) => `ffi library under ${r.name} \\(${LOADERS[r.name]}\\)`,
);
const PACKAGES = ['tier-adapters', 'tier-bench', 'create-rust-ladder'];

// The team's environment: no npm or node:test context of this repository's
// run, nothing of it on PATH but the node binary's directory.
const NODE_DIR = path.dirname(process.execPath);
const ENV = Object.fromEntries(
  Object.entries(process.env).filter(
    ([k]) => !k.startsWith('npm_') && !['INIT_CWD', 'NODE_TEST_CONTEXT', 'NODE_PATH', 'CARGO_TARGET_DIR'].includes(k),
  ),
);
ENV.PATH = [
  ...process.env.PATH.split(':').filter((dir) => dir === NODE_DIR || !path.resolve(dir).startsWith(ROOT)),
  ...RUNTIMES.filter((r) => r.installed).map((r) => path.dirname(r.bin)),
].join(':');

/** Every file under `dir` but node_modules and what the toolkit adds, with its hash. */
function snapshot(dir) {
  const out = {};
  for (const file of fs.readdirSync(dir, { recursive: true })) {
    if (/^(node_modules|rust)(\/|$)/.test(file) || /^package(-lock)?\.json$/.test(file)) continue;
    const full = path.join(dir, file);
    if (fs.statSync(full).isFile()) out[file] = crypto.createHash('sha256').update(fs.readFileSync(full)).digest('hex');
  }
  return out;
}

describe("the toolkit in a team's own service", { timeout: 15 * 60_000 }, () => {
  let tmp;
  let service;
  let registry;
  let before_;
  let pkgBefore;
  const timings = [];
  /** Runs a command in the service as the team types it; returns the result, timed. */
  const run = (label, command, ...args) => {
    const started = Date.now();
    const result = spawnSync(command, args, { cwd: service, env: ENV, encoding: 'utf8', maxBuffer: 64 << 20 });
    if (label) timings.push(`${label}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return result;
  };
  const ok = (result) => assert.equal(result.status, 0, `${result.stdout}\n${result.stderr}`);
  const exec = (...args) => [
    'exec',
    '--yes',
    `--package=${path.join(registry, 'create-rust-ladder-0.1.0.tgz')}`,
    '--',
    'create-rust-ladder',
    ...args,
  ];

  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'team-'));
    service = path.join(tmp, 'orders-service');
    registry = path.join(tmp, 'registry');
    fs.cpSync(path.join(__dirname, '../fixtures/team-service'), service, { recursive: true });
    fs.mkdirSync(registry);
    for (const name of PACKAGES) {
      const file = fs.readdirSync(path.join(ROOT, 'dist')).find((f) => f.startsWith(`${name}-0`));
      assert.ok(file, `${name} in dist/ (make package)`);
      fs.copyFileSync(path.join(ROOT, 'dist', file), path.join(registry, file));
    }
    before_ = snapshot(service);
    pkgBefore = JSON.parse(fs.readFileSync(path.join(service, 'package.json'), 'utf8'));
    // The team's project as it is: its dependencies installed, its tests green.
    ok(run(null, 'npm', 'install', '--prefer-offline', '--no-audit', '--no-fund'));
    ok(run(null, 'npm', 'test'));
  });
  after((t) => {
    if (timings.length) t.diagnostic(timings.join('; '));
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('1. installs the toolkit packages', () => {
    ok(
      run(
        'npm install the packages',
        'npm',
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        path.join(registry, 'tier-adapters-0.1.0.tgz'),
      ),
    );
    ok(
      run(
        null,
        'npm',
        'install',
        '--save-dev',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        path.join(registry, 'tier-bench-0.1.0.tgz'),
      ),
    );
  });

  it('2. the initializer refuses what it cannot do, in one line, writing nothing', () => {
    const refused = (args, pattern) => {
      const result = run(null, 'npm', ...exec(...args));
      assert.equal(result.status, 1, result.stdout + result.stderr);
      const lines = result.stderr.split('\n').filter((l) => l.startsWith('create-rust-ladder:'));
      assert.equal(lines.length, 1, result.stderr);
      assert.match(lines[0], pattern);
      assert.ok(!fs.existsSync(path.join(service, 'rust')), 'nothing written');
    };
    refused([NAME], /say which function to port: --from/);
    refused(['CSV_to_json', '--from', 'src/csv-to-json.js#csvToJson'], /"CSV_to_json" is not a kebab-case name/);
    refused([NAME, '--from', 'src/nope.js#csvToJson'], /src\/nope\.js not found/);
    refused([NAME, '--from', 'src/csv-to-json.js#toCsv'], /never mentions toCsv/);
    // Not a terminal and no --yes: the additions are shown, nothing is written.
    refused([NAME, '--from', 'src/csv-to-json.js#csvToJson'], /run again with --yes/);
    // A directory that is neither empty nor an npm project.
    const other = fs.mkdtempSync(path.join(tmp, 'notes-'));
    fs.writeFileSync(path.join(other, 'notes.txt'), 'x');
    const notNpm = run(null, 'npm', ...exec(NAME, '--dir', other));
    assert.equal(notNpm.status, 1);
    assert.match(notNpm.stderr, /is neither empty nor an npm project/);
  });

  it("3. adds the ladder beside the team's code, showing what package.json gains", () => {
    // --format: rustfmt's layout for this name, checked by `cargo fmt --check` in 4.
    const made = run(
      'create-rust-ladder',
      'npm',
      ...exec(NAME, '--from', 'src/csv-to-json.js#csvToJson', '--yes', '--format'),
    );
    ok(made);
    assert.match(
      made.stdout,
      /package\.json gains:\n {2}devDependencies:\n {4}"@napi-rs\/cli": "\^3\.0\.0"\n {2}scripts:/,
    );
    assert.match(made.stdout, /rust\/csv-to-json\/ made: the Rust port of src\/csv-to-json\.js#csvToJson/);
    // The team's files, byte for byte; package.json only gained.
    assert.deepEqual(snapshot(service), before_);
    const pkg = JSON.parse(fs.readFileSync(path.join(service, 'package.json'), 'utf8'));
    for (const [key, value] of Object.entries(pkgBefore)) {
      if (typeof value !== 'object') assert.equal(pkg[key], value, key);
      else for (const [k, v] of Object.entries(value)) assert.equal(pkg[key][k], v, `${key}.${k}`);
    }
    assert.deepEqual(Object.keys(pkg.scripts).slice(-4), [
      `${NAME}:profile`,
      `${NAME}:build`,
      `${NAME}:test`,
      `${NAME}:bench`,
    ]);
    // A second run collides with the first.
    const again = run(null, 'npm', ...exec(NAME, '--from', 'src/csv-to-json.js#csvToJson', '--yes'));
    assert.equal(again.status, 1);
    assert.match(again.stderr, /create-rust-ladder: rust\/csv-to-json exists already/);
    ok(run('npm install (what it added)', 'npm', 'install', '--prefer-offline', '--no-audit', '--no-fund'));
  });

  it('3b. profiles the function before any Rust, with no cargo on PATH', () => {
    const noCargo = {
      ...ENV,
      PATH: ENV.PATH.split(':')
        .filter((dir) => !fs.existsSync(path.join(dir, 'cargo')))
        .join(':'),
    };
    assert.ok(spawnSync('cargo', ['--version'], { env: noCargo }).error, 'cargo is off PATH');
    const started = Date.now();
    const profiled = spawnSync('npm', ['run', `${NAME}:profile`, '--', '--quick'], {
      cwd: service,
      env: noCargo,
      encoding: 'utf8',
    });
    timings.push(`npm run ${NAME}:profile -- --quick: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    ok(profiled);
    const { function: fn, prediction } = JSON.parse(
      fs.readFileSync(path.join(service, LADDER, 'profile-out/profile.json'), 'utf8'),
    );
    assert.deepEqual(fn, { file: 'src/csv-to-json.js', name: 'csvToJson' });
    // Every rung this Node can serve, and the hop to a Rust service (rpc), predicted from the identity
    // tier-bench's package carries prebuilt.
    const rungs = [...TIERS.filter((t) => t !== 'js'), 'rpc'];
    assert.deepEqual(prediction.tiers.map((t) => t.name).sort(), rungs.sort());
    assert.match(profiled.stdout, /^src\/csv-to-json\.js#csvToJson is \d/m);
  });

  it("4. builds the team's port, lint-clean", () => {
    // What the team writes: the port, and its own inputs in the corpus.
    const lib = path.join(service, LADDER, 'core/src/lib.rs');
    const generated = fs.readFileSync(lib, 'utf8');
    const port = fs.readFileSync(path.join(__dirname, '../fixtures/team-port.rs'), 'utf8');
    const start = generated.indexOf('/// The port of the JavaScript function.');
    const end = generated.indexOf('/// The same for raw bytes');
    assert.ok(start > 0 && end > start);
    fs.writeFileSync(
      lib,
      generated.slice(0, start) +
        port.slice(port.indexOf('/// The port of the JavaScript function.')) +
        '\n' +
        generated.slice(end),
    );
    fs.copyFileSync(path.join(__dirname, '../fixtures/team-corpus.json'), path.join(service, LADDER, 'corpus.json'));
    ok(run(`npm run ${NAME}:build`, 'npm', 'run', `${NAME}:build`));
    for (const file of [
      'napi/index.js',
      'napi/index.d.ts',
      'wasm/pkg/csv_to_json_wasm_bg.wasm',
      'target/release/csv_to_json_cli',
    ]) {
      assert.ok(fs.existsSync(path.join(service, LADDER, file)), file);
    }
    assert.ok(fs.existsSync(path.join(service, LADDER, 'target/release/libcsv_to_json_ffi.so')), 'the ffi library');
    const ladder = (...args) =>
      spawnSync('cargo', args, { cwd: path.join(service, LADDER), env: ENV, encoding: 'utf8' });
    ok(ladder('fmt', '--all', '--check'));
    ok(ladder('clippy', '--quiet', '--workspace', '--all-targets', '--', '-D', 'warnings'));
  });

  it('5. the parity test passes for every tier, in process and over HTTP', () => {
    const tests = run(`npm run ${NAME}:test`, 'npm', 'run', `${NAME}:test`);
    ok(tests);
    // TAP (`ok 3 - tier js`) or spec (`✔ tier js (180ms)`): Node's default reporter depends on its line.
    for (const tier of TIERS)
      assert.match(tests.stdout, new RegExp(`^(ok \\d+ - |✔ )tier ${tier}( \\(.*\\))?$`, 'm'), tier);
    // Not skipped: the same library's bytes under Bun and Deno.
    for (const suite of FFI_RUNTIMES) {
      assert.match(tests.stdout, new RegExp(`^(ok \\d+ - |✔ )${suite}( \\(.*\\))?$`, 'm'), suite);
    }
    // The ffi crate's own tests ran too.
    assert.match(tests.stdout + tests.stderr, /Running unittests src\/lib\.rs \(\S+\/csv_to_json_ffi-/);
  });

  it("6. benchmarks every tier of the team's function", () => {
    ok(run(`npm run ${NAME}:bench -- --quick`, 'npm', 'run', `${NAME}:bench`, '--', '--quick'));
    const out = path.join(service, LADDER, 'bench-out');
    const { results, settings } = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'));
    assert.deepEqual(
      results.map((r) => r.tier),
      TIERS,
    );
    for (const r of results) {
      assert.ok(r.requestsPerSecond > 0, r.tier);
      assert.equal(r.errors + r.non2xx, 0, r.tier);
      assert.ok(r.meanBodyBytes > 2, r.tier);
    }
    assert.match(settings.command, /^tier-bench --config rust\/csv-to-json\/bench\.config\.js/);
    assert.equal(settings.requests.paths, 11);
    const report = fs.readFileSync(path.join(out, 'report.md'), 'utf8');
    assert.match(report, /^# csv-to-json tiers: benchmark report$/m);
    // Step 3b's prediction, beside what the port measured.
    assert.match(report, /^## Against the prediction$/m);
    assert.match(report, /^\| napi \| .* \| (in range|below the floor|\*\*above the ceiling\*\*) \|/m);
  });

  it('7. the parity test catches a port that drifts from the original', () => {
    // JSON.stringify writes \u001f, not \u001F: a port that gets it wrong passes every other input.
    const lib = path.join(service, LADDER, 'core/src/lib.rs');
    const source = fs.readFileSync(lib, 'utf8');
    assert.ok(source.includes('"\\\\u{:04x}"'));
    fs.writeFileSync(lib, source.replace('"\\\\u{:04x}"', '"\\\\u{:04X}"'));
    ok(run(null, 'npm', 'run', `${NAME}:build`));
    const parity = run(null, process.execPath, '--test', '--test-reporter=tap', `${LADDER}/test/parity.test.js`);
    assert.notEqual(parity.status, 0);
    for (const tier of TIERS.slice(1))
      assert.match(parity.stdout, new RegExp(`^not ok \\d+ - tier ${tier}$`, 'm'), tier);
    for (const suite of FFI_RUNTIMES) assert.match(parity.stdout, new RegExp(`^not ok \\d+ - ${suite}$`, 'm'), suite);
    assert.match(parity.stdout, /^ok \d+ - tier js$/m);
  });

  it('never wrote a path of this repository into the service', () => {
    for (const file of fs.readdirSync(service, { recursive: true })) {
      if (/^node_modules(\/|$)|\/target(\/|$)/.test(file)) continue;
      const full = path.join(service, file);
      if (!fs.statSync(full).isFile() || fs.statSync(full).size > 4 << 20) continue;
      assert.ok(!fs.readFileSync(full, 'latin1').includes(ROOT), file);
    }
    assert.deepEqual(snapshot(service), before_);
  });
});

describe('a new service in an empty directory', { timeout: 5 * 60_000 }, () => {
  let dir;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'new-service-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('makes a standalone service around the worked example, whose js tier serves at once', async () => {
    const tgz = (name) =>
      path.join(
        ROOT,
        'dist',
        fs.readdirSync(path.join(ROOT, 'dist')).find((f) => f.startsWith(`${name}-0`)),
      );
    const opts = { cwd: dir, env: ENV, encoding: 'utf8' };
    const made = spawnSync(
      'npm',
      ['exec', '--yes', `--package=${tgz('create-rust-ladder')}`, '--', 'create-rust-ladder', 'slug'],
      opts,
    );
    assert.equal(made.status, 0, made.stderr);
    assert.match(made.stdout, /Then make it yours: src\/slug\.js and port\(\)/);
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    assert.deepEqual(Object.keys(pkg.scripts), ['start', 'slug:profile', 'slug:build', 'slug:test', 'slug:bench']);
    assert.deepEqual(Object.keys(pkg.dependencies), ['express', 'tier-adapters']);
    for (const file of [
      'src/slug.js',
      '.gitignore',
      'rust/slug/.gitignore',
      'rust/slug/Cargo.toml',
      'rust/slug/js/reference.js',
    ])
      assert.ok(fs.existsSync(path.join(dir, file)), file);
    // The packages from their tarballs (no registry has them here), then the rest.
    const install = spawnSync(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', tgz('tier-adapters'), tgz('tier-bench')],
      opts,
    );
    assert.equal(install.status, 0, install.stderr);
    // `npm start`'s command with a free port, started directly: npm does not pass SIGTERM on to it.
    const [command, ...args] = pkg.scripts.start.split(' ');
    assert.equal(command, 'node');
    const server = await startServer(
      process.execPath,
      [...args.map((a) => (a.includes('/') ? path.join(dir, a) : a)), '--port', '0'],
      { env: ENV },
    );
    try {
      const res = await fetch(`${server.url}/slug?input=${encodeURIComponent('Hello, Rust ladder!')}`);
      assert.equal(res.status, 200);
      assert.equal(await res.text(), 'hello-rust-ladder');
      const empty = await fetch(`${server.url}/slug?input=`);
      assert.deepEqual([empty.status, await empty.text()], [400, 'input must not be empty']);
    } finally {
      await server.stop();
    }
  });
});
