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
const { ROOT, startTier, tierCommand, QR_CONFIG } = require('../helpers/servers');
const { openLoop, runLoad } = require('../../bench/lib/load');
const { percentile } = require('../../bench/lib/stats');
const { resetEventLoop, readEventLoop } = require('../../bench/lib/event-loop');
const { TIERS, RUST_TIERS } = require('../helpers/tiers');
const readme = require('../../bench/lib/readme');
const { roundOrder, summarize, measuresOneConnection } = require('../../bench/lib/rounds');
const { freeze, thaw, isFrozen } = require('../../bench/lib/freeze');
const { treePids } = require('../../bench/lib/proc-tree');

const RUN = path.join(ROOT, 'bench/run.js');
const COMPARE = path.join(ROOT, 'bench/compare.js');

describe('bench/run.js --quick', () => {
  let out;
  let report;
  let data;
  let results;
  before(() => {
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'qr-bench-'));
    execFileSync(process.execPath, [RUN, '--quick', '--connections', '50', '--out', out], { stdio: ['ignore', 'ignore', 'inherit'], timeout: 400_000 });
    data = JSON.parse(fs.readFileSync(path.join(out, 'results.json'), 'utf8'));
    ({ results } = data);
    report = fs.readFileSync(path.join(out, 'report.md'), 'utf8');
  });
  after(() => fs.rmSync(out, { recursive: true, force: true }));

  const tiers = [...TIERS, 'axum-nginx', 'napi-node-http'];

  it('reports every tier and the two references, with zero errors', () => {
    assert.deepEqual(results.map((r) => r.tier).sort(), [...tiers].sort());
    for (const r of [...results, ...data.crossLine]) {
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

  it('measures in interleaved rounds: every tier each round in a rotated order, the anchor twice, ratios per round', () => {
    const [{ anchor, rounds }] = data.rounds;
    assert.equal(anchor, 'js');
    assert.equal(rounds.length, 2);
    const subjects = [...tiers, ...data.crossLine.map((r) => `${r.tier}@${r.line}`)];
    for (const round of rounds) {
      assert.deepEqual([...new Set(round.order)].sort(), [...subjects].sort(), `round ${round.round}`);
      assert.equal(round.order.filter((k) => k === anchor).length, 2, `anchor twice in round ${round.round}`);
      assert.ok(round.order.length === subjects.length + 1);
      assert.ok(round.anchorRequestsPerSecond > 0 && round.steal >= 0 && round.softirq >= 0, 'machine index and /proc/stat shares');
    }
    assert.notDeepEqual(rounds[0].order, rounds[1].order, 'the order rotates');
    for (const r of [...results, ...data.crossLine]) {
      for (const figure of ['requestsPerSecond', 'serverCpuUsPerRequest', 'oneConnectionMs']) {
        const st = r.ratios[figure];
        assert.equal(st.perRound.length, 2, `${r.tier} ${figure}`);
        assert.ok(st.min <= st.median && st.median <= st.max && st.min > 0, `${r.tier} ${figure}`);
      }
      assert.equal(r.runs.length, r.tier === anchor ? 4 : 2, `${r.tier}: one visit per round, the anchor two`);
    }
    const js = results.find((r) => r.tier === anchor);
    assert.deepEqual(js.ratios.requestsPerSecond.perRound, [1, 1]);
    assert.deepEqual(data.settings.nodeArgs, ['--no-memory-reducer'], "the servers' Node flags, recorded");
    assert.match(report, /^- Servers' Node: v[\d.]+ \(V8 [^)]+\), run with `--no-memory-reducer`;/m);
    // A Rust tier beats `js` by far in every round; `axum` needs no worker count.
    assert.ok(results.find((r) => r.tier === 'napi').ratios.requestsPerSecond.min > 5);
    for (const section of ['Main run: closed loop, interleaved rounds', 'Relative to `js`, within each round', 'Rounds', 'What the framework costs', 'Across Node lines']) {
      assert.match(report, new RegExp(`^## ${section.replace(/[()`]/g, '\\$&')}`, 'm'), section);
    }
  });

  it('runs napi and its bare node:http reference on another Node line in the same rounds, and says which', () => {
    const lines = [...new Set(data.crossLine.map((r) => r.line))];
    assert.equal(lines.length, 1);
    assert.notEqual(`v${lines[0]}`, data.machine.node);
    assert.deepEqual(data.crossLine.map((r) => r.tier).sort(), ['napi', 'napi-node-http']);
    assert.ok(data.crossLine.every((r) => /^\d+\.\d+/.test(r.v8)), 'V8 recorded per line');
    assert.match(data.machine.node, /^v\d+\./);
    assert.ok(data.machine.v8 && data.machine.kernel, 'Node, V8 and the kernel recorded');
    assert.match(report, new RegExp(`^\\| ${lines[0].replace(/\./g, '\\.')} \\| [^|]+ \\| \`napi\` \\|`, 'm'));
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
      // The fixed rates come from the rounds' medians.
      assert.equal(r.fixedRate[0].targetRate, 0.5 * results.find((x) => x.tier === 'js').requestsPerSecond, r.tier);
      assert.ok(r.crossCheck.wrk.requestsPerSecond > 0 && r.crossCheck.autocannon === r.requestsPerSecond, `${r.tier} wrk`);
    }
    for (const section of ['Latency at fixed request rates', 'Cost against text length', 'Against connections', 'autocannon against wrk', 'Cost per million requests']) {
      assert.match(report, new RegExp(`^## ${section}`, 'm'));
    }
    // The relative table's p99 is at the common fixed rate, not closed-loop.
    assert.match(report, /^\| tier \| workers \| req\/s \| CPU per request \| c=1 latency \| p99 at \d+ req\/s \|/m);
    for (const chart of ['length-cpu.svg', 'length-p99.svg', 'connections-rps.svg', 'connections-p99.svg']) {
      assert.match(fs.readFileSync(path.join(out, chart), 'utf8'), /<polyline/, chart);
    }
  });

  it('marks the rows the load generator or the machine limited as lower bounds, in the tables and the chart', () => {
    const { limitOf } = require('../../bench/lib/report');
    const bound = results.filter((r) => limitOf(r, data.machine.cores));
    // `axum` answers far faster than any node-server tier: the generator's share shows.
    assert.ok(bound.some((r) => r.tier === 'axum'), 'axum is bound by the load generator');
    for (const r of bound) assert.match(report, new RegExp(`^\\| ${r.tier}( \\(ref\\.\\))? \\| 1 \\| (\\*\\*)?≥ `, 'm'), r.tier);
    for (const r of results.filter((x) => !bound.includes(x))) assert.doesNotMatch(report, new RegExp(`^\\| ${r.tier}( \\(ref\\.\\))? \\| 1 \\| (\\*\\*)?≥ `, 'm'), r.tier);
    assert.match(fs.readFileSync(path.join(out, 'chart.svg'), 'utf8'), /url\(#bound\).*≥ /s);
  });

  it('bench/compare.js passes a report against itself, flags a ratio that moved, and refuses another machine', () => {
    const file = path.join(out, 'results.json');
    const same = spawnSync(process.execPath, [COMPARE, file, file], { encoding: 'utf8' });
    assert.equal(same.status, 0, same.stdout);
    assert.match(same.stdout, /^0 of \d+ ratios moved/m);
    const moved = JSON.parse(fs.readFileSync(file, 'utf8'));
    moved.results.find((r) => r.tier === 'napi').ratios.serverCpuUsPerRequest.median *= 1.06;
    // An absolute figure that moves alone is drift, not a difference.
    moved.results.find((r) => r.tier === 'wasm').requestsPerSecond *= 0.5;
    const movedFile = path.join(out, 'moved.json');
    fs.writeFileSync(movedFile, JSON.stringify(moved));
    const diff = spawnSync(process.execPath, [COMPARE, file, movedFile], { encoding: 'utf8' });
    assert.equal(diff.status, 1, diff.stdout);
    assert.match(diff.stdout, /^\| napi \| 1 \| CPU\/req ratio \|.*\+6\.0% \| 5\.0% \| \*\*moved\*\* \|$/m);
    assert.match(diff.stdout, /^1 of \d+ ratios moved/m);
    assert.match(diff.stdout, /^\| napi \| 1 \| CPU\/req ratio \| [\d.]+ \| [\d.]+ \| ±\d+\.\d% \|/m, 'each ratio shows the noise its rounds carry');
    const other = { ...moved, machine: { ...moved.machine, cores: moved.machine.cores * 4 } };
    fs.writeFileSync(movedFile, JSON.stringify(other));
    const refused = spawnSync(process.execPath, [COMPARE, file, movedFile], { encoding: 'utf8' });
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /different machines \(cores: \d+ vs \d+\)/);
    assert.equal(spawnSync(process.execPath, [COMPARE, file, movedFile, '--any-machine'], { encoding: 'utf8' }).status, 1);
  });

  it('--render draws the same report from results.json, and --readme writes its summary between the markers', () => {
    const before = report;
    const readmeFile = path.join(out, 'README.md');
    fs.writeFileSync(readmeFile, `# x\n\nabove\n\n${readme.BEGIN}\nstale\n${readme.END}\n\nbelow\n`);
    execFileSync(process.execPath, [RUN, '--render', out, '--readme', readmeFile], { stdio: 'ignore' });
    assert.equal(fs.readFileSync(path.join(out, 'report.md'), 'utf8'), before);
    const written = fs.readFileSync(readmeFile, 'utf8');
    assert.ok(written.startsWith('# x\n\nabove\n\n') && written.endsWith('\n\nbelow\n'), 'only the section changes');
    assert.equal(readme.extract(written), readme.section(data, '.'));
    // "≥ " when the load generator was the limit, as it can be on a fast machine.
    assert.match(readme.extract(written), /^\| napi \| (≥ )?\d+\.\dx \(/m);
  });
});

describe('the README and the committed report', () => {
  const committed = JSON.parse(fs.readFileSync(path.join(ROOT, 'bench/results/results.json'), 'utf8'));
  const text = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

  it('holds exactly the summary bench/results/results.json renders', () => {
    assert.equal(readme.extract(text), readme.section(committed, 'bench/results'), 'run: node bench/run.js --render bench/results --readme README.md');
  });

  it('quotes no benchmark figure outside that summary', () => {
    const outside = text.replace(readme.extract(text), '');
    // A measured rate or cost per request: "12,744 req/s", "88.3 us/req", "66.1 us of CPU".
    const figure = /\d[\d,.]*\s*(req\/s|us\/req|us of (server )?CPU|requests? per second)/g;
    assert.deepEqual(outside.match(figure) ?? [], []);
  });

  it('"Which tier?" quotes only ratios the summary holds', () => {
    const guide = text.slice(text.indexOf('## Which tier?'), text.indexOf('\n## ', text.indexOf('## Which tier?') + 1));
    const summary = readme.extract(text);
    const ratios = guide.match(/\d+\.\d+x/g) ?? [];
    assert.ok(ratios.length >= 10, `${ratios.length} ratios in the guide`);
    assert.deepEqual(ratios.filter((r) => !summary.includes(` ${r}`)), [], 'ratios not in the rendered summary');
  });

  it('was made on the pinned Node line, with the cross-line section', () => {
    assert.equal(committed.machine.node, `v${fs.readFileSync(path.join(ROOT, '.nvmrc'), 'utf8').trim()}`);
    assert.ok(committed.crossLine.length >= 4, 'napi and its reference on the two other lines');
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

  it("gives every Node process of a server the benchmark's Node flags, a cluster's workers too, and no other program", async () => {
    const nodeArgs = ['--no-memory-reducer'];
    const server = await startTier('napi', { workers: 2, nodeArgs });
    try {
      const argvs = treePids(server.child.pid).map((pid) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'));
      assert.equal(argvs.length, 3, 'the primary and its two workers');
      for (const argv of argvs) assert.deepEqual(argv.slice(0, 2), [process.execPath, ...nodeArgs], argv.join(' '));
    } finally {
      await server.stop();
    }
    const [command, args] = tierCommand('axum', { nodeArgs });
    assert.ok(![command, ...args].includes(nodeArgs[0]), 'qr_server takes no Node flags');
  });

  it("freezes a server's whole tree: a frozen cluster answers nothing, thawed it answers", async () => {
    const server = await startTier('cli-pool', { workers: 2 });
    try {
      const root = server.child.pid;
      // The primary, two workers and their qr_cli --serve children.
      assert.ok(treePids(root).length >= 5, `${treePids(root).length} processes`);
      freeze(root);
      assert.ok(isFrozen(root), 'every process stopped');
      const pending = fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(5000) }).then((res) => res.status);
      const early = await Promise.race([pending, new Promise((resolve) => setTimeout(() => resolve('nothing'), 500))]);
      assert.equal(early, 'nothing', 'a frozen server does not answer');
      thaw(root);
      assert.equal(await pending, 200, 'thawed, it answers the request that waited');
      assert.ok(!isFrozen(root));
    } finally {
      thaw(server.child.pid);
      await server.stop();
    }
  });

  it("bench/compare.js gives each ratio's noise: the standard error of both runs' medians of per-round ratios", () => {
    const { compare } = require('../../bench/compare');
    const report = (perRound) => ({ results: [{ tier: 't', workers: 1, requestsPerSecond: 1, ratios: { serverCpuUsPerRequest: { median: 1, perRound } } }] });
    // Sample sd 0.1155 over 4 rounds: 1.2533 * 0.1155 / 2 = 7.24% each, 10.2% both.
    const spread = [0.9, 0.9, 1.1, 1.1];
    const [row] = compare(report(spread), report(spread), { rps: 0.1, cpu: 0.05 });
    assert.equal(row.figure, 'CPU/req ratio');
    assert.ok(Math.abs(row.noise - 0.1024) < 0.001, `noise ${row.noise}`);
    const [steady] = compare(report([1, 1, 1, 1]), report([1, 1, 1, 1]), { rps: 0.1, cpu: 0.05 });
    assert.equal(steady.noise, 0);
  });

  it('measures one connection in the rounds asked for, evenly spread, the first included', () => {
    const which = (rounds, wanted) => Array.from({ length: rounds }, (_, r) => r).filter((r) => measuresOneConnection(r, rounds, wanted));
    assert.deepEqual(which(20, 5), [0, 4, 8, 12, 16]);
    assert.deepEqual(which(7, 5).length, 5);
    assert.deepEqual(which(2, 5), [0, 1], 'fewer rounds than asked: every round');
    assert.deepEqual(which(4, 0), []);
  });

  it('orders each round with the anchor first and halfway, the others rotated', () => {
    const keys = ['js', 'a', 'b', 'c', 'd'];
    assert.deepEqual(roundOrder(keys, 'js', 0), ['js', 'a', 'b', 'js', 'c', 'd']);
    assert.deepEqual(roundOrder(keys, 'js', 1), ['js', 'b', 'c', 'js', 'd', 'a']);
    assert.deepEqual(roundOrder(keys, 'js', 4), roundOrder(keys, 'js', 0));
  });

  it('reads each ratio within its round, so a round where the whole machine ran slow changes none', () => {
    // Round 2 runs everything at half speed and double CPU: absolute medians
    // move, ratios do not.
    const visit = (key, round, rps, cpu) => ({ key, round, main: { requestsPerSecond: rps, serverCpuUsPerRequest: cpu, peakPssMB: 10 + round, errors: round, machine: { steal: 0, softirq: 0.01 } }, single: { latencyMs: { mean: 1000 / rps } } });
    const visits = [];
    for (const [round, speed] of [[0, 1], [1, 0.5], [2, 1]]) {
      visits.push(visit('js', round, 100 * speed, 10 / speed), visit('napi', round, 3000 * speed, 0.3 / speed), visit('js', round, 100 * speed, 10 / speed));
    }
    const { subjects, rounds } = summarize(visits, 'js', 3);
    const napi = subjects.get('napi');
    for (const figure of ['requestsPerSecond', 'serverCpuUsPerRequest', 'oneConnectionMs']) {
      const st = napi.ratios[figure];
      assert.ok(st.perRound.every((x) => Math.abs(x - st.perRound[0]) < 1e-9), `${figure}: ${st.perRound}`);
    }
    assert.ok(Math.abs(napi.ratios.requestsPerSecond.median - 30) < 1e-9);
    assert.deepEqual(rounds.map((r) => r.anchorRequestsPerSecond), [1, 0.5, 1]);
    // Peaks are the maximum, failures the sum over every visit.
    assert.equal(napi.main.peakPssMB, 12);
    assert.equal(napi.main.errors, 3);
  });

  it('--pin is refused where it cannot give every worker a CPU apart from the load generator', () => {
    const cores = os.availableParallelism();
    const workers = String(cores);
    const run = spawnSync(process.execPath, [RUN, '--pin', '--workers', workers, '--out', os.tmpdir()], { encoding: 'utf8' });
    assert.equal(run.status, 2);
    assert.match(run.stderr, new RegExp(`--pin needs one CPU for the load generator and one per worker \\(${cores}\\): this machine has ${cores}`));
  });

  it('brackets the answers it counts: the CPU window closes when counting stops, not when the load processes exit', async () => {
    // The sampler's window (measure.js) opens and closes on these two events;
    // a window closed at the processes' exit bills the server's work on the
    // answers dropped in flight to the answers counted.
    const server = http.createServer((req, res) => res.end('ok'));
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${server.address().port}`;
      for (const job of [
        { kind: 'closed', connections: 4, paths: ['/'], warmup: 1, duration: 1, timeout: 10 },
        { kind: 'open', rate: 200, connections: 2, paths: ['/'], warmup: 0, duration: 1 },
      ]) {
        const events = [];
        const load = await runLoad(url, job, {
          processes: 2,
          onMeasureStart: () => events.push(['start', performance.now()]),
          onMeasureEnd: () => events.push(['end', performance.now()]),
        });
        events.push(['resolved', performance.now()]);
        assert.deepEqual(events.map(([e]) => e), ['start', 'end', 'resolved'], job.kind);
        const measured = (events[1][1] - events[0][1]) / 1000;
        assert.ok(Math.abs(measured - load.seconds) < 0.5, `${job.kind}: window ${measured} s, answers counted over ${load.seconds} s`);
        assert.ok(load.responses > 0);
      }
    } finally {
      server.close();
    }
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
