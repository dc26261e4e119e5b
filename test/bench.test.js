'use strict';

// The benchmark harness: quick mode over every tier with every section of the
// report, the per-worker event-loop reading, the open-loop generator's timing
// (no coordinated omission), bench/compare.js, and core-curve.js.
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { ROOT, startTier } = require('../bench/lib/launch');
const { openLoop } = require('../bench/lib/load');
const { percentile } = require('../bench/lib/drive');
const { resetEventLoop, readEventLoop } = require('../bench/lib/event-loop');
const { TIERS, RUST_TIERS } = require('./helpers/tiers');

const RUN = path.join(ROOT, 'bench/run.js');
const COMPARE = path.join(ROOT, 'bench/compare.js');

describe('bench/run.js --quick', () => {
  let out;
  let report;
  let results;
  before(() => {
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'qr-bench-'));
    execFileSync(process.execPath, [RUN, '--quick', '--connections', '50', '--out', out], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 400_000 });
    ({ results } = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8')));
    report = fs.readFileSync(path.join(out, 'report.md'), 'utf8');
  });
  after(() => fs.rmSync(out, { recursive: true, force: true }));

  const tiers = [...TIERS, 'axum-nginx', 'napi-node-http'];

  it('reports every tier and the two references, with zero errors', () => {
    assert.deepEqual(results.map((r) => r.tier).sort(), [...tiers].sort());
    for (const r of results) {
      assert.equal(r.errors, 0, `${r.tier} errors`);
      assert.equal(r.non2xx, 0, `${r.tier} non-2xx`);
      assert.ok(r.requestsPerSecond > 0 && r.latencyMs.p99 > 0 && r.latencyMs.p999 >= r.latencyMs.p99, r.tier);
      assert.ok(r.peakPssMB > 0 && r.serverCpuUsPerRequest > 0, r.tier);
      // Load and sampling ran in processes of their own, each measured.
      assert.ok(r.loadGeneratorCpuCores > 0 && r.samplerCpuCores > 0, r.tier);
    }
    for (const tier of tiers) assert.match(report, new RegExp(`^\\| ${tier}( \\(ref\\.\\))? \\| 1 \\|`, 'm'));
    assert.match(fs.readFileSync(path.join(out, 'chart.svg'), 'utf8'), /^<svg/);
  });

  it('separates body bytes from wire bytes: the same PNG bytes on every Rust tier', () => {
    const rust = results.filter((r) => RUST_TIERS.includes(r.tier) || r.tier === 'axum-nginx' || r.tier === 'napi-node-http');
    for (const r of rust) assert.equal(r.meanBodyBytes, rust[0].meanBodyBytes, r.tier);
    for (const r of results) assert.ok(r.meanWireBytes > r.meanBodyBytes + 50, `${r.tier}: headers are in wire bytes only`);
  });

  it('reads the event loop of node-server tiers only', () => {
    for (const r of results) {
      if (['axum', 'axum-nginx', 'napi-node-http'].includes(r.tier)) assert.equal(r.eventLoopDelayMs, undefined, r.tier);
      else assert.equal(r.eventLoopDelayMs.workersRead, 1, r.tier);
    }
  });

  it('has every curve point, fixed rate and wrk figure, as tables and charts', () => {
    for (const r of results) {
      assert.deepEqual(r.connectionsCurve.map((p) => p.connections), [1, 10, 50], r.tier);
      assert.deepEqual(r.lengthCurve.map((p) => p.length), [16, 512], r.tier);
      for (const p of [...r.connectionsCurve, ...r.lengthCurve]) assert.ok(p.requestsPerSecond > 0 && p.serverCpuUsPerRequest > 0, r.tier);
      // Longer text, more work per request (the js tier's noise is far below 512 B's cost).
      assert.ok(r.lengthCurve[1].serverCpuUsPerRequest > r.lengthCurve[0].serverCpuUsPerRequest * 0.8, `${r.tier} length curve`);
      const rates = r.fixedRate.map((f) => f.of);
      assert.deepEqual(rates, r.tier === 'js' ? ['js'] : ['js', 'own'], r.tier);
      for (const f of r.fixedRate) assert.ok(f.responses > 0 && f.latencyMs.p50 > 0 && f.targetRate > 0, `${r.tier} fixed rate`);
      assert.ok(r.crossCheck.wrk.requestsPerSecond > 0 && r.crossCheck.autocannon === r.requestsPerSecond, `${r.tier} wrk`);
    }
    for (const section of ['What express costs', 'Latency at fixed request rates', 'Cost against text length', 'Against connections', 'autocannon against wrk', 'Cost per million requests']) {
      assert.match(report, new RegExp(`^## ${section}`, 'm'));
    }
    for (const chart of ['length-cpu.svg', 'length-p99.svg', 'connections-rps.svg', 'connections-p99.svg']) {
      assert.match(fs.readFileSync(path.join(out, chart), 'utf8'), /<polyline/, chart);
    }
  });

  it('bench/compare.js passes a report against itself and flags a figure that moved', () => {
    const file = path.join(out, 'results.json');
    const same = spawnSync(process.execPath, [COMPARE, file, file], { encoding: 'utf8' });
    assert.equal(same.status, 0, same.stdout);
    assert.match(same.stdout, /^0 of \d+ figures moved/m);
    const moved = JSON.parse(fs.readFileSync(file, 'utf8'));
    moved.results.find((r) => r.tier === 'napi').serverCpuUsPerRequest *= 1.5;
    const movedFile = path.join(out, 'moved.json');
    fs.writeFileSync(movedFile, JSON.stringify(moved));
    const diff = spawnSync(process.execPath, [COMPARE, file, movedFile], { encoding: 'utf8' });
    assert.equal(diff.status, 1, diff.stdout);
    assert.match(diff.stdout, /^\| napi \| 1 \| server CPU us\/req \|.*\+50\.0% \| 10\.0% \(assumed\) \| \*\*moved\*\* \|$/m);
    assert.match(diff.stdout, /^1 of \d+ figures moved/m);
  });
});

describe('bench harness parts', () => {
  it('reads every worker of a cluster, and an idle loop reads about 0 ms', async () => {
    const server = await startTier('napi', { workers: 2 });
    try {
      const reset = await resetEventLoop(server.url, 2);
      assert.equal(new Set(reset.map((w) => w.pid)).size, 2);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const loop = await readEventLoop(server.url, 2);
      assert.equal(loop.workersRead, 2);
      // The monitor's own 1 ms period is subtracted: idle is not "1 ms of delay".
      for (const w of loop.perWorker) assert.ok(w.p50 < 0.5, `idle worker p50 ${w.p50} ms`);
    } finally {
      await server.stop();
    }
  });

  it('--pin is refused where it cannot give every worker a CPU apart from the load generator', () => {
    const cores = os.availableParallelism();
    const workers = String(cores);
    const run = spawnSync(process.execPath, [RUN, '--pin', '--workers', workers, '--out', os.tmpdir()], { encoding: 'utf8' });
    assert.equal(run.status, 2);
    assert.match(run.stderr, new RegExp(`--pin needs one CPU for the load generator and one per worker \\(${cores}\\): this machine has ${cores}`));
  });

  it('times open-loop requests from their scheduled time: a stall delays every request behind it', async () => {
    // A server that blocks for 300 ms on its 20th request; one connection, so
    // the requests due meanwhile wait in the client. Timed from when they were
    // sent, only one request would look slow.
    let count = 0;
    const server = http.createServer((req, res) => {
      if (++count === 20) {
        const until = Date.now() + 300;
        while (Date.now() < until);
      }
      res.end('ok');
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${server.address().port}`;
      const load = await openLoop(url, { rate: 100, warmup: 0, duration: 2, paths: ['/'], connections: 1 });
      assert.equal(load.errors, 0);
      assert.equal(load.responses, 200);
      const slow = load.latencies.filter((ms) => ms > 50).length;
      assert.ok(slow >= 15, `${slow} of 200 requests over 50 ms (a 300 ms stall at 100/s delays ~30)`);
      assert.ok(percentile(load.latencies, 90) > 50, `p90 ${percentile(load.latencies, 90)} ms`);
    } finally {
      server.close();
    }
  });
});

describe('open-loop connections', () => {
  it('follows a server that closes after every answer onto new connections, losing nothing', async () => {
    const server = http.createServer((req, res) => {
      res.setHeader('connection', 'close');
      res.end('ok');
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const load = await openLoop(`http://127.0.0.1:${server.address().port}`, { rate: 100, warmup: 0, duration: 1, paths: ['/'], connections: 2 });
      assert.equal(load.errors, 0);
      assert.equal(load.responses, 100);
      assert.equal(load.non2xx, 0);
    } finally {
      server.close();
    }
  });
});

describe('bench/run.js --soak', () => {
  it('soaks a tier and writes its report', () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'qr-soak-'));
    try {
      // Three seconds say nothing about growth: exit 1 (a tier grew) is allowed here.
      const soak = spawnSync(process.execPath, [RUN, '--soak', '3s', '--soak-warmup', '1', '--tiers', 'napi', '--out', out], { encoding: 'utf8', timeout: 60_000 });
      assert.ok(soak.status === 0 || soak.status === 1, soak.stderr);
      const { results } = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'));
      assert.equal(results.length, 1);
      assert.equal(results[0].tier, 'napi');
      assert.ok(results[0].samples.length >= 2, 'RSS samples');
      assert.match(fs.readFileSync(path.join(out, 'report.md'), 'utf8'), /napi/);
      assert.match(fs.readFileSync(path.join(out, 'chart.svg'), 'utf8'), /^<svg/);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});

describe('bench/core-curve.js', () => {
  it('times every in-process binding on every text set and length', () => {
    const out = execFileSync(process.execPath, [path.join(ROOT, 'bench/core-curve.js'), '--rounds', '1', '--round-ms', '2'], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.match(out, /^\| texts \| n \| napi us\/call \| wasm us\/call \| wasm-raw us\/call \| PNG bytes \|$/m);
    const sets = ['ten article URLs', 'all shared texts', '510-512 byte texts', ...[16, 64, 128, 256, 384, 512].map((n) => `${n} bytes`)];
    for (const set of sets) {
      const row = out.split('\n').find((line) => line.startsWith(`| ${set} |`));
      assert.ok(row, `row for ${set}`);
      const figures = row.split('|').slice(3, -1).map(Number);
      assert.equal(figures.length, 4, row);
      assert.ok(figures.every((x) => x > 0), row);
    }
  });
});
