'use strict';

// The boundary calibration (bench/lib/calibrate.js) on the real prebuilt
// identity ladder (make build-calibration): every tier returns exactly the
// output size asked for each size pair (the child checks it before timing,
// and a wrong size fails the whole run), and the figures have the shape a
// boundary has: a process per call costs the most and mostly outside the
// main thread, a pool's threads and workers count in the tree's CPU, napi
// costs less than a process. Short runs: the shape, not the figures.
const { describe, it, before } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { isBuiltin } = require('node:module');
const { ROOT } = require('../helpers/servers');
const { calibrate, TIERS, LADDER_TIERS } = require('../../bench/lib/calibrate');
const { ladderFiles, LADDER } = require('../../bench/calibration/build');

const SIZES = [
  { input: 40, output: 1500 }, // a short text in, a PNG out
  { input: 2000, output: 2400 }, // CSV in, JSON out
  { input: 1, output: 384 }, // shorter than its own head: raised to it
];
const QUICK = { seconds: 0.3, warmSeconds: 0.1, passes: 1 };
const OTHER_LINE = fs
  .readFileSync(path.join(ROOT, 'scripts/node-versions'), 'utf8')
  .split('\n')
  .find((line) => line.startsWith('22.'))
  ?.split(/\s+/)[0];
const NODE_22 = OTHER_LINE && path.join(ROOT, 'target/node', OTHER_LINE, 'bin/node');

describe('boundary calibration', { timeout: 120_000 }, () => {
  let result;
  before(async () => {
    result = await calibrate({ sizes: SIZES, ...QUICK });
  });

  it('goes through the ladder create-rust-ladder generates today', () => {
    // The JS side byte for byte (the Rust side is rustfmt's layout of it): a stale build fails here.
    for (const [file, text] of ladderFiles()) {
      if (!file.endsWith('.js')) continue;
      assert.equal(fs.readFileSync(path.join(LADDER, file), 'utf8'), text, `${file}: make build-calibration`);
    }
  });

  it("runs a port that agrees with identity.js through every tier: the ladder's own parity test", () => {
    const args = ['--test', '--test-reporter=tap', path.join(LADDER, 'test/parity.test.js')];
    const parity = spawnSync(process.execPath, args, {
      encoding: 'utf8',
      // Not a subtest of this run; the ladder's artifacts where tier-bench ships them.
      env: { ...process.env, NODE_TEST_CONTEXT: undefined, CARGO_TARGET_DIR: undefined },
    });
    assert.equal(parity.status, 0, parity.stdout);
    for (const tier of LADDER_TIERS) assert.match(parity.stdout, new RegExp(`^ok \\d+ - tier ${tier}`, 'm'), tier);
  });

  it('measures every tier this Node serves, with the sizes as sent', () => {
    assert.equal(result.node, process.version);
    assert.deepEqual(result.sizes, [
      SIZES[0],
      SIZES[1],
      { input: 4, output: 384, note: "asked 1/384: an input holds at least the output's length and a newline" },
    ]);
    assert.deepEqual(Object.keys(result.tiers), TIERS);
    for (const [name, t] of Object.entries(result.tiers)) {
      if (name === 'ffi' && !isBuiltin('node:ffi')) {
        assert.match(t.skipped, /needs node:ffi/);
        continue;
      }
      assert.equal(t.skipped, undefined, `${name}: ${t.skipped}`);
      assert.ok(t.calls > 0 && t.wallMs >= QUICK.seconds * 1000, name);
      assert.ok(t.mainUs > 0 && t.totalUs > 0, name);
      // The main thread is part of the tree; the two readings differ only by their resolution.
      assert.ok(t.mainUs <= t.totalUs * 1.1 + 0.5, `${name}: main ${t.mainUs} > total ${t.totalUs}`);
      assert.ok(t.boundaryMainUs >= 0 && t.boundaryTotalUs >= 0, name);
    }
    assert.deepEqual([result.tiers.js.boundaryMainUs, result.tiers.js.boundaryTotalUs], [0, 0]);
  });

  it('counts what runs off the main thread: child processes, live or exited, and the thread pool', () => {
    const { cli, 'cli-pool': pool, 'napi-async': async, napi, rpc } = result.tiers;
    // A process per call: its CPU (exec, start-up, the call) is in the children this process reaped.
    assert.ok(cli.childrenUs > 100, `cli: ${JSON.stringify(cli)}`);
    // Live children's CPU is read in clock ticks (10 ms): a few in a 0.3 s window, so "counted at all".
    // Stdio workers, alive all through the window.
    assert.ok(pool.childrenUs > 0, `cli-pool: ${JSON.stringify(pool)}`);
    // The Rust service of the hop, a child too, reading frames and writing answers.
    assert.ok(rpc.childrenUs > 0, `rpc: ${JSON.stringify(rpc)}`);
    for (const name of ['js', 'wasm', 'napi', 'napi-async']) assert.equal(result.tiers[name].childrenUs, 0, name);
    // This process's threads besides the main one: libuv's pool, V8's. A few µs a call on an idle
    // machine; on a busy one the pool's threads wake less often, so only "counted at all" holds.
    const offMain = (t) => t.totalUs - t.childrenUs - t.mainUs;
    assert.ok(offMain(async) > 0.2, `napi-async: ${offMain(async)} us a call off the main thread`);
    assert.ok(offMain(cli) > 0.2, `cli: ${offMain(cli)} us a call off the main thread`);
    // A call into the addon costs far less than starting a process.
    const [n, c] = [napi.boundaryTotalUs, cli.boundaryTotalUs];
    assert.ok(n * 20 < c, `napi ${n}, cli ${c}`);
    assert.ok(napi.boundaryMainUs < cli.boundaryMainUs);
  });

  it('refuses what it cannot measure, in one line', async () => {
    await assert.rejects(calibrate({ sizes: [] }), /^Error: calibrate: sizes must be a non-empty array/);
    await assert.rejects(calibrate({ sizes: [{ input: 10, output: -1 }] }), /calibrate: sizes: output must be a whole/);
    await assert.rejects(calibrate({ sizes: SIZES, tiers: ['napi', 'axum'] }), /calibrate: unknown tier axum/);
    await assert.rejects(calibrate({ sizes: SIZES, node: '/nonexistent/node' }), /calibrate: tier js: .*ENOENT/);
  });

  const no22 = (!NODE_22 || !fs.existsSync(NODE_22)) && 'no Node 22 in target/node';
  it('skips, with the reason, a tier the given Node cannot serve', { skip: no22 }, async () => {
    const old = await calibrate({ sizes: SIZES.slice(0, 1), tiers: ['napi', 'ffi'], node: NODE_22, ...QUICK });
    assert.match(old.node, /^v22\./);
    assert.deepEqual(Object.keys(old.tiers), ['js', 'napi', 'ffi']);
    assert.match(old.tiers.ffi.skipped, /^tier ffi needs node:ffi, which Node v22\.\S+ does not have/);
    assert.ok(old.tiers.napi.mainUs > 0 && old.tiers.napi.calls > 0);
  });
});
