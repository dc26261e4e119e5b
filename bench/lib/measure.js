'use strict';

// One measured run of one tier: start it, warm up with the connections the
// run keeps, measure steady state, then one-connection latency, then stop it.
const autocannon = require('autocannon');
const { startTier, LAUNCHER_TIERS } = require('./launch');
const { sampleTree } = require('./proc-tree');

const SAMPLE_MS = 200;
// No node-server in the path: no event loop to report.
const RUST_SERVED = new Set(['axum', 'axum-nginx']);

/** Latency percentiles (ms) from a sorted Float64Array. */
function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function getJson(url) {
  return fetch(url).then((r) => (r.ok ? r.json() : null)).catch(() => null);
}

/**
 * Drives `url` with autocannon for warmup + duration seconds and records only
 * responses after the warm-up, so connection set-up is not measured.
 */
function drive(url, { connections, warmup, duration, paths, onTick, onMeasureStart, keepLatencies = true }) {
  return new Promise((resolve, reject) => {
    const latencies = [];
    const stats = { responses: 0, bytes: 0, non2xx: 0, errors: 0, timeouts: 0 };
    let measuring = false;
    let measureStart = 0n;
    const startMeasuring = () => {
      measuring = true;
      measureStart = process.hrtime.bigint();
      onMeasureStart?.();
    };
    if (warmup === 0) startMeasuring();
    const instance = autocannon(
      {
        url,
        connections,
        duration: warmup + duration,
        requests: paths.map((path) => ({ method: 'GET', path })),
      },
      (err) => {
        if (err) return reject(err);
        const seconds = Number(process.hrtime.bigint() - measureStart) / 1e9;
        resolve({ ...stats, seconds, latencies: Float64Array.from(latencies).sort() });
      },
    );
    instance.on('response', (client, statusCode, resBytes, responseTime) => {
      if (!measuring) return;
      stats.responses++;
      stats.bytes += resBytes;
      if (statusCode < 200 || statusCode > 299) stats.non2xx++;
      if (keepLatencies) latencies.push(responseTime);
    });
    instance.on('reqError', (err) => {
      if (!measuring) return;
      stats.errors++;
      if (/timed out/.test(err.message)) stats.timeouts++;
    });
    let elapsed = 0;
    instance.on('tick', ({ counter }) => {
      elapsed++;
      onTick?.(elapsed, counter);
      if (!measuring && elapsed >= warmup) startMeasuring();
    });
  });
}

/**
 * @returns {Promise<object>} every raw figure of one run
 */
async function measureTier(tier, options) {
  const { workers, connections, warmup, duration, oneConnectionSeconds, paths, serverCpus, onProgress } = options;
  const sampling = { includeRoot: !LAUNCHER_TIERS.has(tier) };
  const server = await startTier(tier, { workers, cpus: serverCpus });
  try {
    let peakPss = 0;
    let peakRss = 0;
    let start;
    let sampler;
    let clientCpuStart;
    const beginMeasure = async () => {
      start = { tree: sampleTree(server.child.pid, sampling), at: process.hrtime.bigint() };
      clientCpuStart = process.cpuUsage();
      await getJson(`${server.url}/metrics/event-loop?reset=1`);
      sampler = setInterval(() => {
        const s = sampleTree(server.child.pid, sampling);
        peakPss = Math.max(peakPss, s.pss);
        peakRss = Math.max(peakRss, s.rss);
      }, SAMPLE_MS);
    };
    const load = await drive(server.url, {
      connections,
      warmup,
      duration,
      paths,
      onTick: (second, counter) => onProgress?.({ second, total: warmup + duration, rps: counter }),
      onMeasureStart: beginMeasure,
    });
    clearInterval(sampler);
    const end = sampleTree(server.child.pid, sampling);
    const clientCpu = process.cpuUsage(clientCpuStart);
    const eventLoop = RUST_SERVED.has(tier) ? null : await getJson(`${server.url}/metrics/event-loop`);
    const wallSeconds = Number(process.hrtime.bigint() - start.at) / 1e9;

    // The bare cost of the mechanism per call: one connection, one request at a time.
    const single = await drive(server.url, { connections: 1, warmup: 1, duration: oneConnectionSeconds, paths });
    const ok = load.responses - load.non2xx;
    return {
      tier,
      workers,
      connections,
      requestsPerSecond: ok / load.seconds,
      latencyMs: {
        mean: load.latencies.reduce((a, b) => a + b, 0) / load.latencies.length,
        p50: percentile(load.latencies, 50),
        p99: percentile(load.latencies, 99),
        max: load.latencies[load.latencies.length - 1],
      },
      oneConnectionLatencyMs: {
        mean: single.latencies.reduce((a, b) => a + b, 0) / single.latencies.length,
        p50: percentile(single.latencies, 50),
        p99: percentile(single.latencies, 99),
      },
      meanResponseBytes: load.bytes / Math.max(1, load.responses),
      peakPssMB: Math.max(peakPss, end.pss) / 1e6,
      peakRssMB: Math.max(peakRss, end.rss) / 1e6,
      serverCpuUsPerRequest: ((end.cpuSeconds - start.tree.cpuSeconds) * 1e6) / Math.max(1, ok),
      serverCpuCores: (end.cpuSeconds - start.tree.cpuSeconds) / wallSeconds,
      // autocannon runs in this process: its CPU use shows when the client was the limit.
      loadGeneratorCpuCores: (clientCpu.user + clientCpu.system) / 1e6 / wallSeconds,
      eventLoopDelayMs: eventLoop && { p99: eventLoop.p99, max: eventLoop.max },
      responses: load.responses,
      non2xx: load.non2xx + single.non2xx,
      errors: load.errors + single.errors,
      timeouts: load.timeouts + single.timeouts,
      processes: end.processes,
    };
  } finally {
    await server.stop();
  }
}

module.exports = { measureTier, drive, percentile };
