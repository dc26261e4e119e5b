'use strict';

// One tier, started once: the closed-loop run the main table reports, the
// one-connection run, and (when asked) the cost curves, fixed-rate latency
// and the wrk cross-check on the same server. Load comes from load processes
// (load.js), memory and CPU from a sampler process (sampler.js).
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startTier } = require('./launch');
const { tierOf } = require('./config');
const { createSampler } = require('./sampler');
const { reapedChildrenCpuSeconds } = require('./proc-tree');
const { runLoad } = require('./load');
const { percentile } = require('./drive');
const { resetEventLoop, readEventLoop } = require('./event-loop');

const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);

/** Mean PNG body bytes over `paths`, one request each (the outputs are deterministic). */
async function meanBodyBytes(url, paths) {
  let bytes = 0;
  for (const p of paths) bytes += (await (await fetch(url + p)).arrayBuffer()).byteLength;
  return bytes / paths.length;
}

/** wrk on the same server, paths and connections: a second load generator's view. */
function wrk(url, { paths, connections, seconds, cpus }) {
  const lua = path.join(os.tmpdir(), `qr-bench-${process.pid}.lua`);
  fs.writeFileSync(lua, `local paths = {${paths.map((p) => JSON.stringify(p)).join(', ')}}\nlocal i = 0\nrequest = function()\n  i = i % #paths + 1\n  return wrk.format("GET", paths[i])\nend\n`);
  const args = ['-t', '1', '-c', String(connections), '-d', `${seconds}s`, '--timeout', '30s', '-s', lua, url];
  const cpuBefore = reapedChildrenCpuSeconds();
  try {
    const out = execFileSync(cpus ? 'taskset' : 'wrk', cpus ? ['-c', cpus, 'wrk', ...args] : args, { encoding: 'utf8' });
    const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
    return {
      requestsPerSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]),
      non2xx,
      cpuCores: (reapedChildrenCpuSeconds() - cpuBefore) / seconds,
    };
  } finally {
    fs.rmSync(lua, { force: true });
  }
}

/** A run's figures from its load and its sampler window. */
function figures(load, window, extra = {}) {
  const ok = load.responses - load.non2xx;
  const l = load.latencies;
  return {
    requestsPerSecond: ok / load.seconds,
    latencyMs: {
      mean: mean(l),
      p50: percentile(l, 50),
      p99: percentile(l, 99),
      p999: percentile(l, 99.9),
      max: l[l.length - 1],
    },
    meanWireBytes: load.bytes / Math.max(1, load.responses),
    peakPssMB: window.peakPss / 1e6,
    peakRssMB: window.peakRss / 1e6,
    serverCpuUsPerRequest: (window.serverCpuSeconds * 1e6) / Math.max(1, ok),
    serverCpuCores: window.serverCpuSeconds / window.wallSeconds,
    loadGeneratorCpuCores: load.loadGeneratorCpuCores,
    loadProcesses: load.loadProcesses,
    samplerCpuCores: window.samplerCpuCores,
    responses: load.responses,
    non2xx: load.non2xx,
    errors: load.errors,
    timeouts: load.timeouts,
    processes: window.processes,
    ...extra,
  };
}

/**
 * Starts `tier`, measures it, stops it.
 * @returns {Promise<object>} the main run's figures, plus `curves` and `crossCheck` when asked
 */
async function benchTier(tier, options) {
  const { workers, connections, warmup, duration, oneConnectionSeconds, paths, serverCpus, clientCpus, loadProcesses, log } = options;
  const { config } = options;
  const entry = tierOf(config, tier);
  const server = await startTier(tier, { workers, cpus: serverCpus, config });
  const sampler = createSampler(server.child.pid, { includeRoot: !entry.launcher, cpus: clientCpus });
  const loopMetrics = Boolean(entry.eventLoop);
  // One measured window: load from the load processes, figures from the sampler.
  const run = async (job, { label, eventLoop = false } = {}) => {
    let begun;
    const onMeasureStart = () => {
      begun = Promise.all([sampler.begin(), eventLoop ? resetEventLoop(server.url, workers) : null]);
    };
    const onTick = (second, rps) => log?.(`${label}: ${second}/${job.warmup + job.duration} s, ${rps} req/s`, true);
    const load = await runLoad(server.url, job, { processes: job.connections > 1 ? loadProcesses : 1, cpus: clientCpus, onTick, onMeasureStart });
    await begun;
    const window = await sampler.end();
    const eventLoopDelayMs = eventLoop ? await readEventLoop(server.url, workers) : undefined;
    return figures(load, window, eventLoop ? { eventLoopDelayMs } : {});
  };
  try {
    const closed = (c, p, w, d) => ({ kind: 'closed', connections: c, paths: p, warmup: w, duration: d, timeout: 30 });
    const main = await run(closed(connections, paths, warmup, duration), { label: `${tier} w=${workers}`, eventLoop: loopMetrics });
    // The bare cost of the mechanism per call: one connection, one request at a time.
    const single = await run(closed(1, paths, 1, oneConnectionSeconds), { label: `${tier} c=1` });
    const result = {
      tier,
      workers,
      connections,
      ...main,
      meanBodyBytes: await meanBodyBytes(server.url, paths),
      oneConnectionLatencyMs: single.latencyMs,
      oneConnection: single,
    };
    const curves = options.curves;
    if (curves) {
      const { curveWarmup: cw, curveDuration: cd } = curves;
      result.crossCheck = { wrk: wrk(server.url, { paths, connections, seconds: curves.wrkSeconds, cpus: clientCpus }), autocannon: main.requestsPerSecond };
      result.lengthCurve = [];
      for (const { length, paths: lengthPaths } of curves.lengths) {
        const r = await run(closed(connections, lengthPaths, cw, cd), { label: `${tier} ${length} B` });
        result.lengthCurve.push({ length, ...r });
      }
      result.fixedRate = [];
      // Rates as fractions of the baseline tier's maximum and of this tier's own.
      const { baseline } = config;
      const baselineMax = tier === baseline ? main.requestsPerSecond : curves.baselineMax;
      for (const [of, max] of [[baseline, baselineMax], ['own', main.requestsPerSecond]]) {
        if (!of || !max || (of === 'own' && tier === baseline)) continue;
        for (const fraction of curves.rateFractions) {
          const rate = fraction * max;
          const r = await run({ kind: 'open', rate, connections, paths, warmup: cw, duration: cd }, { label: `${tier} ${rate.toFixed(0)}/s` });
          result.fixedRate.push({ of, fraction, targetRate: rate, ...r });
        }
      }
      // Last: a thousand connections leave a backlog behind on the slow tiers.
      result.connectionsCurve = [];
      for (const c of curves.connections) {
        const r = c === connections ? main : c === 1 ? single : await run(closed(c, paths, cw, cd), { label: `${tier} c=${c}` });
        result.connectionsCurve.push({ connections: c, ...r });
      }
    }
    return result;
  } finally {
    sampler.close();
    await server.stop();
  }
}

module.exports = { benchTier };
