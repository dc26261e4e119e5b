'use strict';

// Measured windows on a started server: the closed-loop run the main table
// reports and the one-connection run (a visit of an interleaved round,
// rounds.js), and the cost curves, fixed-rate latency and the wrk cross-check.
// Load comes from load processes (load.js), memory and CPU from a sampler
// process (sampler.js), the machine's steal and softirq from /proc/stat.
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createSampler } = require('./sampler');
const { reapedChildrenCpuSeconds } = require('./proc-tree');
const { createLoad } = require('./load');
const { percentile, mean } = require('./stats');
const { resetEventLoop, readEventLoop } = require('./event-loop');
const { cpuTicks, cpuShares } = require('./machine');

/** Mean body bytes over `paths`, one request each (the outputs are deterministic). */
async function meanBodyBytes(url, paths) {
  let bytes = 0;
  for (const p of paths) bytes += (await (await fetch(url + p)).arrayBuffer()).byteLength;
  return bytes / paths.length;
}

/** Whether wrk is on PATH: the cross-check is left out without it. */
const hasWrk = () => !spawnSync('wrk', ['-v']).error;

/**
 * wrk on the same server, paths and connections: a second load generator's view
 * (whole seconds: wrk takes no fraction).
 */
function wrk(url, { paths, connections, seconds }) {
  const lua = path.join(os.tmpdir(), `tier-bench-${process.pid}.lua`);
  fs.writeFileSync(
    lua,
    `local paths = {${paths.map((p) => JSON.stringify(p)).join(', ')}}\n` +
      'local i = 0\nrequest = function()\n  i = i % #paths + 1\n  return wrk.format("GET", paths[i])\nend\n',
  );
  const args = [
    '-t',
    '1',
    '-c',
    String(connections),
    '-d',
    `${Math.ceil(seconds)}s`,
    '--timeout',
    '30s',
    '-s',
    lua,
    url,
  ];
  const cpuBefore = reapedChildrenCpuSeconds();
  try {
    const out = execFileSync('wrk', args, { encoding: 'utf8' });
    const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
    return {
      requestsPerSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]),
      non2xx,
      cpuCores: (reapedChildrenCpuSeconds() - cpuBefore) / Math.ceil(seconds),
    };
  } finally {
    fs.rmSync(lua, { force: true });
  }
}

/** Mean and percentiles of sorted latencies; NaN where there are none. */
function latencyFigures(l) {
  return {
    mean: mean(Array.from(l)),
    p50: percentile(l, 50),
    p99: percentile(l, 99),
    p999: percentile(l, 99.9),
    max: l.length ? l[l.length - 1] : NaN,
  };
}

/** `a / b`, or NaN where nothing was counted: no figure from an empty denominator. */
const per = (a, b) => (b > 0 ? a / b : NaN);

/** A run's figures from its load and its sampler window. */
function figures(load, window, machine, extra = {}) {
  const ok = load.responses - load.non2xx;
  return {
    requestsPerSecond: ok / load.seconds,
    // Answered 2xx; refused answers (503 past the queue bound) apart.
    latencyMs: latencyFigures(load.latencies),
    ...(load.refusedLatencies?.length && { refusedLatencyMs: latencyFigures(load.refusedLatencies) }),
    ...(load.sendLags && { sendLagMs: latencyFigures(load.sendLags) }),
    meanWireBytes: per(load.bytes, load.responses),
    peakPssMB: window.peakPss / 1e6,
    peakRssMB: window.peakRss / 1e6,
    peakUssMB: window.peakUss / 1e6,
    serverCpuUsPerRequest: per(window.serverCpuSeconds * 1e6, ok),
    serverCpuCores: window.serverCpuSeconds / window.wallSeconds,
    busiestThreadCores: window.busiestThreadCores,
    loadGeneratorCpuCores: load.loadGeneratorCpuCores,
    loadProcesses: load.loadProcesses,
    samplerCpuCores: window.samplerCpuCores,
    ...(window.speedProbe && { speedProbe: window.speedProbe }),
    // The window's first part (load.js, `head`) against the rest of it: a
    // head that costs more says the warm-up ended before the server had
    // regained its pace.
    ...(load.headResponses > 0 &&
      ok > load.headResponses &&
      Number.isFinite(window.headCpuSeconds) && {
        measuredHead: {
          seconds: load.headSeconds,
          cpuUsPerRequest: (window.headCpuSeconds * 1e6) / load.headResponses,
          restCpuUsPerRequest: ((window.serverCpuSeconds - window.headCpuSeconds) * 1e6) / (ok - load.headResponses),
        },
      }),
    responses: load.responses,
    non2xx: load.non2xx,
    errors: load.errors,
    timeouts: load.timeouts,
    processes: window.processes,
    machine,
    ...extra,
  };
}

/**
 * A meter on a started server (`server.child` the root of its tree):
 * `window(job)` runs one load job and returns its figures. `load` is the
 * run's load processes (load.js createLoad), shared by every meter so that
 * they stay warm from window to window; without it the meter keeps its own.
 * @param {{ child: import('node:child_process').ChildProcess, url: string }} server
 * @param {{ entry: { launcher?: boolean }, workers: number, load?: ReturnType<typeof createLoad>,
 *   log?: (line: string, transient?: boolean) => void }} options
 */
function createMeter(server, { entry, workers, load: shared, log }) {
  const sampler = createSampler(server.child.pid, { includeRoot: !entry.launcher });
  const load = shared ?? createLoad();
  /**
   * @param {import('./load').LoadJob} job
   * @param {{ label?: string, eventLoop?: boolean, probe?: boolean }} [options] `probe`: time the speed probe
   *   through the window (the closed-loop window of a visit only: its bursts would show in one connection's tail)
   */
  const window = async (job, { label, eventLoop = false, probe = false } = {}) => {
    let begun;
    let ended;
    let ticks;
    let ticksEnd;
    const onMeasureStart = () => {
      ticks = cpuTicks();
      begun = Promise.all([sampler.begin({ probe }), eventLoop ? resetEventLoop(server.url, workers) : null]);
    };
    // The window closes when the load stops counting answers, not when its
    // job has ended: the server's work on the answers dropped in
    // flight (100 of them take js a quarter of a second) is no one's cost.
    const onMeasureEnd = () => {
      ticksEnd = cpuTicks();
      ended = begun.then(() => sampler.end());
    };
    const onTick = (second, rps) => log?.(`${label}: ${second}/${job.warmup + job.duration} s, ${rps} req/s`, true);
    // The sampler reads its messages in order: 'mark' after the window's 'begin'.
    const onHeadEnd = () => sampler.mark();
    const result = await load.run(server.url, job, { onTick, onMeasureStart, onHeadEnd, onMeasureEnd });
    const sampled = await ended;
    const machine = cpuShares(ticks, ticksEnd);
    const eventLoopDelayMs = eventLoop ? await readEventLoop(server.url, workers) : undefined;
    return figures(result, sampled, machine, eventLoop ? { eventLoopDelayMs } : {});
  };
  // wrk, while the subject runs: a second, cheaper load generator's req/s
  // for a visit whose autocannon was the limit.
  const wrkVisit = ({ paths, connections, seconds }) => wrk(server.url, { paths, connections, seconds });
  const close = () => {
    sampler.close();
    if (!shared) load.close();
  };
  return { url: server.url, window, wrk: wrkVisit, close };
}

// A visit's measured window: its first HEAD_S seconds (a quarter of a shorter
// one) counted apart, which the report compares with the rest of it.
const HEAD_S = 0.5;

const closed = (connections, paths, warmup, duration, { head = 0 } = {}) => ({
  kind: 'closed',
  connections,
  paths,
  warmup,
  duration,
  timeout: 30,
  ...(head > 0 && { head }),
});

/**
 * One visit: the closed-loop window at `connections` on fresh connections;
 * where `limited(main)` says autocannon or the machine held it back, wrk's
 * req/s on the same paths; then (given `oneConnection`) the bare cost of the
 * mechanism per call: one connection, one request at a time.
 */
async function visit(meter, { label, connections, paths, warmup, duration, oneConnection, eventLoop, limited }) {
  const job = closed(connections, paths, warmup, duration, { head: Math.min(HEAD_S, duration / 4) });
  const main = await meter.window(job, { label, eventLoop, probe: true });
  const wrkRun = limited?.(main) && hasWrk() ? meter.wrk({ paths, connections, seconds: duration }) : null;
  const single = oneConnection
    ? await meter.window(closed(1, paths, oneConnection.warmup, oneConnection.duration), { label: `${label} c=1` })
    : null;
  return { main, single, wrk: wrkRun };
}

/**
 * The curves of one tier: wrk on the same requests, cost against input size,
 * fixed-rate latency at fractions of the baseline's and the tier's own
 * maximum (`main.requestsPerSecond`, the interleaved median), and req/s
 * against connections (`main` and `single` are its c=connections and c=1 points).
 * @param {ReturnType<typeof createMeter>} meter
 * @param {{ tier: string, config: import('./tier-config').BenchConfig, curves: object, connections: number,
 *   paths: string[], main: object, single: object, baselineMax: number }} options
 */
async function curvesOf(meter, { tier, config, curves, connections, paths, main, single, baselineMax }) {
  const { curveWarmup: cw, curveDuration: cd } = curves;
  const result = {};
  if (hasWrk())
    result.crossCheck = {
      wrk: wrk(meter.url, { paths, connections, seconds: curves.wrkSeconds }),
      autocannon: main.requestsPerSecond,
    };
  result.lengthCurve = [];
  for (const { length, paths: lengthPaths } of curves.lengths) {
    const r = await meter.window(closed(connections, lengthPaths, cw, cd), { label: `${tier} ${length} B` });
    result.lengthCurve.push({ length, ...r });
  }
  result.fixedRate = [];
  const { baseline } = config;
  for (const [of, max] of [
    [baseline, baselineMax],
    ['own', main.requestsPerSecond],
  ]) {
    if (!of || !max || (of === 'own' && tier === baseline)) continue;
    for (const fraction of curves.rateFractions) {
      const rate = fraction * max;
      const r = await meter.window(
        { kind: 'open', rate, connections, paths, warmup: cw, duration: cd },
        { label: `${tier} ${rate.toFixed(0)}/s` },
      );
      result.fixedRate.push({ of, fraction, targetRate: rate, ...r });
    }
  }
  // Last: a thousand connections leave a backlog behind on the slow tiers.
  result.connectionsCurve = [];
  for (const c of curves.connections) {
    const r =
      c === connections
        ? main
        : c === 1
          ? single
          : await meter.window(closed(c, paths, cw, cd), { label: `${tier} c=${c}` });
    result.connectionsCurve.push({ connections: c, ...r });
  }
  return result;
}

module.exports = { createMeter, visit, curvesOf, meanBodyBytes, closed, hasWrk, figures };
