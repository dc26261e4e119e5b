'use strict';

// Soak: one tier under steady load for minutes; its process tree's RSS is
// sampled every second to see whether memory settles or keeps growing.
const { drive } = require('./drive');
const { startTier } = require('./launch');
const { tierOf } = require('./tier-config');
const { sampleTree } = require('./proc-tree');

const SAMPLE_MS = 1000;
// Share of the measured window averaged at each end: one sample is noise.
const EDGE_FRACTION = 0.1;
const MAX_GROWTH = 0.05;

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Least-squares slope of y over x. */
function slope(xs, ys) {
  const mx = mean(xs);
  const my = mean(ys);
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return den ? num / den : 0;
}

/**
 * RSS growth over the measured window: the mean of its last tenth against the
 * mean of its first tenth (after the warm-up), plus the trend per minute.
 */
function rssGrowth(samples) {
  const n = Math.max(1, Math.round(samples.length * EDGE_FRACTION));
  const startMB = mean(samples.slice(0, n).map((s) => s.rssMB));
  const endMB = mean(samples.slice(-n).map((s) => s.rssMB));
  const trend = slope(
    samples.map((s) => s.second / 60),
    samples.map((s) => s.rssMB),
  );
  return {
    startMB,
    endMB,
    peakMB: Math.max(...samples.map((s) => s.rssMB)),
    growth: endMB / startMB - 1,
    trendMBPerMinute: trend,
  };
}

/** One tier soaked: warm-up, then `duration` seconds of samples. */
async function soakTier(tier, { config, connections, warmup, duration, paths, onProgress }) {
  const sampling = { includeRoot: !tierOf(config, tier).launcher };
  const server = await startTier(tier, { config });
  try {
    const samples = [];
    let sampler;
    let t0;
    const load = await drive(server.url, {
      connections,
      warmup,
      duration,
      paths,
      keepLatencies: false,
      onTick: (second, counter) => onProgress?.({ second, total: warmup + duration, rps: counter }),
      onMeasureStart: () => {
        t0 = process.hrtime.bigint();
        const sample = () => {
          const tree = sampleTree(server.child.pid, sampling);
          const second = Number(process.hrtime.bigint() - t0) / 1e9;
          samples.push({ second, rssMB: tree.rss / 1e6, pssMB: tree.pss / 1e6, processes: tree.processes });
        };
        sample();
        sampler = setInterval(sample, SAMPLE_MS);
      },
    });
    clearInterval(sampler);
    const rss = rssGrowth(samples);
    return {
      tier,
      connections,
      warmupSeconds: warmup,
      seconds: load.seconds,
      responses: load.responses,
      requestsPerSecond: (load.responses - load.non2xx) / load.seconds,
      non2xx: load.non2xx,
      errors: load.errors,
      timeouts: load.timeouts,
      rss,
      pass: rss.growth < MAX_GROWTH && load.errors === 0 && load.non2xx === 0,
      samples,
    };
  } finally {
    await server.stop();
  }
}

/** "10m", "90s", "1h" or plain seconds -> seconds. */
function parseDuration(text) {
  const match = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(text);
  if (!match) throw new Error(`invalid duration "${text}" (e.g. 10m, 90s)`);
  return Number(match[1]) * { s: 1, m: 60, h: 3600 }[match[2] ?? 's'];
}

module.exports = { soakTier, rssGrowth, parseDuration, MAX_GROWTH };
