'use strict';

// tier-bench-profile (bench/profile.js): the source rewrite, the profile's
// attribution, the prediction, and a short run on a team's real service
// (test/fixtures/team-service) with no Rust toolchain on PATH.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { rewrite, binds } = require('../../bench/lib/profile/rewrite');
const { attribute } = require('../../bench/lib/profile/attribute');
const { predict, verdict } = require('../../bench/lib/profile/predict');

const ROOT = path.resolve(__dirname, '../..');
const SERVICE = path.join(ROOT, 'test/fixtures/team-service');

test('the rewrite wraps the binding, so calls inside the module go through the wrapper', () => {
  const wrapAll = (source, name, format) => {
    const code = rewrite(source, name, format);
    assert.notEqual(code, null);
    const key = Symbol.for('tier-bench.profile');
    const calls = [];
    globalThis[key] = {
      wrap:
        (fn) =>
        (...a) => {
          calls.push(a);
          return fn(...a);
        },
    };
    try {
      const module = { exports: {} };
      new Function('module', 'exports', code)(module, module.exports);
      return { exports: module.exports, calls };
    } finally {
      delete globalThis[key];
    }
  };
  for (const source of [
    'function f(x) { return x * 2; }\nconst g = (x) => f(x);\nmodule.exports = { f, g };',
    'const f = (x) => x * 2;\nfunction g(x) { return f(x); }\nmodule.exports = { f, g };',
    'let f = async function (x) { return x * 2; };\nconst g = (x) => f(x);\nmodule.exports = { f, g };',
  ]) {
    const { exports, calls } = wrapAll(source, 'f', 'commonjs');
    exports.g(3);
    exports.f(4);
    assert.deepEqual(calls, [[3], [4]], source);
  }
  // An export of no binding of its own: wrapped on module.exports.
  const { exports, calls } = wrapAll('module.exports.f = (x) => x + 1;', 'f', 'commonjs');
  assert.equal(exports.f(1), 2);
  assert.deepEqual(calls, [[1]]);
  // An ES module: the binding itself (its importers see it live); none, no rewrite.
  assert.match(rewrite('export const f = (x) => x;', 'f', 'module'), /^export let f = /);
  assert.equal(rewrite('export default (x) => x;', 'f', 'module'), null);
  assert.ok(binds('export async function csvToJson(t) {}', 'csvToJson'));
  assert.ok(!binds('const rows = csvToJson(t);', 'csvToJson'));
});

test('attribution: self and inclusive shares, a recursive function counted once, idle left out', () => {
  const frame = (id, functionName, url, children = [], lineNumber = 0) => ({
    id,
    callFrame: { functionName, url, lineNumber, columnNumber: 0, scriptId: '1' },
    children,
  });
  const root = '/srv';
  const profile = {
    nodes: [
      frame(1, '(root)', '', [2, 6, 7]),
      frame(2, 'handle', 'file:///srv/node_modules/express/lib/router.js', [3]),
      frame(3, 'render', 'file:///srv/src/render.js', [4], 9),
      frame(4, 'render', 'file:///srv/src/render.js', [5], 9),
      frame(5, 'deflate', 'node:zlib'),
      frame(6, '(garbage collector)', ''),
      frame(7, '(idle)', ''),
    ],
    samples: [5, 5, 4, 3, 6, 7, 7, 7],
    timeDeltas: [1, 1, 1, 1, 1, 1, 1, 1],
  };
  const a = attribute(profile, { root });
  assert.equal(a.samples, 5);
  const render = a.functions.find((f) => f.name === 'render');
  assert.deepEqual({ file: render.file, line: render.line }, { file: 'src/render.js', line: 10 });
  assert.equal(render.inclusive, 4 / 5); // not 7/5: the recursion counts once per sample
  assert.equal(render.self, 2 / 5);
  const group = (g) => a.groups.find((x) => x.group === g);
  assert.equal(group('node_modules/express').inclusive, 4 / 5);
  assert.equal(group('node internals').self, 2 / 5);
  assert.equal(group('V8: garbage collector').self, 1 / 5);
});

test('the prediction: the ceiling and the floor bracket each rung, and a costly boundary loses', () => {
  const window = (rps, cpuUs, mainUs) => ({ rps, cpuUs, mainUs, generatorUs: 10, mainCores: 0.95 });
  const js = window(1000, 1000, 950);
  const free = window(20000, 50, 47.5);
  const boundaries = {
    napi: { mainUs: 1, totalUs: 1 },
    'napi-async': { mainUs: 5, totalUs: 12 },
    cli: { mainUs: 400, totalUs: 2500 },
  };
  const p = predict(js, free, { callsPerRequest: 1, cores: 2, boundaries });
  assert.equal(p.function.share, 0.95);
  const tier = (name) => p.tiers.find((t) => t.name === name);
  for (const t of p.tiers) {
    assert.ok(t.ceiling.rps >= t.floor.rps && t.ceiling.cpu >= t.floor.cpu, t.name);
    assert.ok(t.ceiling.rps <= p.free.rps && t.ceiling.cpu <= p.free.cpu, t.name);
  }
  assert.equal(tier('napi').ceiling.cpu, 1000 / 51);
  // On the loop, a port no faster than the JavaScript only adds its boundary.
  assert.ok(tier('napi').floor.rps < 1);
  // Off the loop too, the floor claims no second core: the hop's cost in a served request is not calibrated.
  assert.ok(tier('napi-async').floor.rps < 1);
  assert.ok(tier('napi-async').ceiling.rps > tier('napi-async').floor.rps);
  assert.ok(tier('cli').ceiling.cpu < 1);
  const lines = verdict(p, { name: 'render' });
  assert.match(lines[1], /^Try napi first/);
  assert.ok(lines.some((l) => /^cli loses even if Rust costs nothing/.test(l)));
  // A function that is 2% of a request: no rung buys 10%.
  const small = predict(js, window(1000 * (1000 / 980), 980, 930), { callsPerRequest: 1, cores: 2, boundaries });
  assert.match(verdict(small)[1], /^Do not port it/);
  // One measured at nothing (the free launch no cheaper, as a short run on a busy machine can read): 0% of the
  // service's 1000 us, not a share to divide by.
  const nothing = predict(js, window(1000, 1000, 950), { callsPerRequest: 1, cores: 2, boundaries });
  assert.equal(nothing.function.share, 0);
  assert.match(verdict(nothing)[0], /is 0\.0% of the service's CPU per request \(0\.0 of 1000\.0 us,/);
});

test("a short profile of a team's service, with no Rust toolchain on PATH", { timeout: 180_000 }, (t) => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'tier-bench-profile-'));
  t.after(() => fs.rmSync(out, { recursive: true, force: true }));
  const corpus = require('../fixtures/team-corpus.json');
  const sample = fs.readFileSync(path.join(SERVICE, 'samples/orders.csv'), 'utf8');
  const inputs = corpus.valid.map((v) => (typeof v === 'string' ? v : sample));
  const pathsFile = path.join(out, 'paths.json');
  fs.writeFileSync(pathsFile, JSON.stringify(inputs.map((i) => `/convert?csv=${encodeURIComponent(i)}`)));
  const env = { ...process.env, PORT: '0', PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin` };
  assert.ok(spawnSync('cargo', ['--version'], { env }).error, 'cargo must not be on the PATH of this run');
  const args = [
    path.join(ROOT, 'bench/profile.js'),
    '--paths',
    pathsFile,
    '--ready',
    'on (\\d+)',
    '--quick',
    '--out',
    out,
    '--',
    process.execPath,
    'server.js',
  ];
  const run = spawnSync(process.execPath, args, { cwd: SERVICE, env, encoding: 'utf8', timeout: 170_000 });
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  const result = JSON.parse(fs.readFileSync(path.join(out, 'profile.json'), 'utf8'));
  t.diagnostic(`${result.seconds.toFixed(0)} s; ${result.verdict.join(' ')}`);
  // The profile found the team's function on its own, and the wrapper saw every call.
  assert.deepEqual(result.function, { file: 'src/csv-to-json.js', name: 'csvToJson' });
  assert.equal(result.measured.callsPerRequest, 1);
  assert.equal(result.measured.freeHitRate, 1);
  assert.ok(result.attribution.functions.some((f) => f.file === 'src/csv-to-json.js' && f.name === 'parse'));
  // The sizes it saw are the sizes the function takes and gives.
  const { csvToJson } = require(path.join(SERVICE, 'src/csv-to-json.js'));
  const real = new Set(inputs.map((i) => `${Buffer.byteLength(i)}/${Buffer.byteLength(csvToJson(i))}`));
  for (const s of result.measured.sizes) assert.ok(real.has(`${s.input}/${s.output}`), `${s.input}/${s.output}`);
  const f = result.prediction.function;
  // A share, not its size: the quick run's one-second windows, on a machine busy with other tests, have read the
  // function at nothing (the free launch no cheaper). Its size is the benchmark's to say (`make bench`).
  assert.ok(f.share >= 0 && f.share < 1, `share ${f.share}`);
  for (const name of ['napi', 'napi-async', 'wasm', 'cli-pool', 'rpc', 'cli']) {
    const tier = result.prediction.tiers.find((x) => x.name === name);
    assert.ok(tier, `no prediction for ${name}`);
    assert.ok(tier.ceiling.rps >= tier.floor.rps && tier.ceiling.cpu >= tier.floor.cpu, name);
  }
  assert.match(result.verdict[0], /^src\/csv-to-json\.js#csvToJson is \d/);
  const report = fs.readFileSync(path.join(out, 'report.md'), 'utf8');
  assert.match(report, /^# Should `src\/csv-to-json\.js#csvToJson` move to Rust\?/);
  assert.ok(run.stdout.startsWith(result.verdict[0]));
});
