'use strict';

// The statistics of every tier-bench figure, in one place: the rounds' stop
// rule, the report's intervals, the comparison of two runs and the core
// curve all read them from here.

const finite = (xs) => xs.filter(Number.isFinite);

function mean(xs) {
  const v = finite(xs);
  return v.length ? v.reduce((a, b) => a + b, 0) / v.length : NaN;
}

/** Sample standard deviation (n - 1). */
function sd(xs) {
  const v = finite(xs);
  if (v.length < 2) return NaN;
  const m = mean(v);
  return Math.sqrt(v.reduce((a, x) => a + (x - m) ** 2, 0) / (v.length - 1));
}

function median(xs) {
  const s = finite(xs).sort((a, b) => a - b);
  if (!s.length) return NaN;
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** The value at percentile `p` of an already sorted array (nearest rank). */
function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

// Student's t, two-sided 95%, by degrees of freedom; 1.96 past the table.
const T975 = [
  NaN,
  12.706,
  4.303,
  3.182,
  2.776,
  2.571,
  2.447,
  2.365,
  2.306,
  2.262,
  2.228,
  2.201,
  2.179,
  2.16,
  2.145,
  2.131,
  2.12,
  2.11,
  2.101,
  2.093,
  2.086,
  2.08,
  2.074,
  2.069,
  2.064,
  2.06,
  2.056,
  2.052,
  2.048,
  2.045,
  2.042,
];
const t975 = (df) => (df < T975.length ? T975[df] : 1.96);

/**
 * The 95% interval of a ratio from its per-round values: a t interval on
 * their logarithms (a ratio's noise is multiplicative, and 1/x of the
 * interval is the interval of 1/x). `estimate` is the geometric mean;
 * `halfWidth` the relative half-width (0.05: within ±5%); `se` the
 * standard error of the log mean, which compare.js combines across runs.
 */
function ratioInterval(perRound) {
  const logs = finite(perRound)
    .filter((x) => x > 0)
    .map(Math.log);
  const n = logs.length;
  if (!n) return { estimate: NaN, low: NaN, high: NaN, halfWidth: NaN, se: NaN, n };
  const m = mean(logs);
  const se = n > 1 ? sd(logs) / Math.sqrt(n) : NaN;
  const h = t975(n - 1) * se;
  return { estimate: Math.exp(m), low: Math.exp(m - h), high: Math.exp(m + h), halfWidth: Math.expm1(h), se, n };
}

/**
 * How many rounds the per-round values' spread would need for their ratio's
 * 95% interval to come within ±`tolerance` (a sample-size estimate from the
 * rounds so far: the same t interval, the same spread, more rounds); at
 * least as many as there are, at most `cap`, NaN from fewer than two.
 */
function roundsToReach(perRound, tolerance, { cap = 1000 } = {}) {
  const logs = finite(perRound)
    .filter((x) => x > 0)
    .map(Math.log);
  const s = sd(logs);
  if (!Number.isFinite(s)) return NaN;
  const target = Math.log1p(tolerance);
  let n = logs.length;
  while (n < cap && t975(n - 1) * (s / Math.sqrt(n)) > target) n++;
  return n;
}

/** Invert an interval: the same interval for 1/x. */
function invert(iv) {
  return { ...iv, estimate: 1 / iv.estimate, low: 1 / iv.high, high: 1 / iv.low };
}

// A seeded generator (mulberry32): a bootstrap that gives the same interval
// for the same data, so a rendered report never changes on its own.
function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Percentile bootstrap 95% interval of `statistic` over `xs`. */
function bootstrap(xs, statistic = median, { samples = 2000, seed = 1 } = {}) {
  const v = finite(xs);
  if (v.length < 2) return { low: NaN, high: NaN };
  const random = seeded(seed);
  const stats = Float64Array.from({ length: samples }, () =>
    statistic(Array.from({ length: v.length }, () => v[Math.floor(random() * v.length)])),
  ).sort();
  return { low: percentile(stats, 2.5), high: percentile(stats, 97.5) };
}

// Two modes: each side holds at least this many rounds (and this share),
// their centres stand MODE_SEPARATION pooled standard deviations and at least
// MODE_MIN_GAP apart (closer modes change no decision), with MODE_HOLE sd of
// nothing between them. A normal sample's best split stands about 2.7 sd
// apart; on simulated normal rounds these thresholds flag 1-2% of samples of
// 8-10 rounds and fewer of more.
const MODE_MIN_ROUNDS = 4;
const MODE_MIN_SHARE = 0.25;
const MODE_SEPARATION = 5;
const MODE_MIN_GAP = 0.05;
const MODE_HOLE = 2;

/**
 * Whether the per-round values fall into two groups with a gap between them
 * (the best split of the sorted logs). Returns the two groups' geometric
 * means and sizes, or null when there is one mode.
 */
function twoModes(perRound) {
  const logs = finite(perRound)
    .filter((x) => x > 0)
    .map(Math.log)
    .sort((a, b) => a - b);
  const n = logs.length;
  const least = Math.max(MODE_MIN_ROUNDS, Math.ceil(MODE_MIN_SHARE * n));
  if (n < 2 * least) return null;
  const ss = (xs) => {
    const m = mean(xs);
    return xs.reduce((a, x) => a + (x - m) ** 2, 0);
  };
  let best = null;
  for (let k = least; k <= n - least; k++) {
    const [lo, hi] = [logs.slice(0, k), logs.slice(k)];
    const within = ss(lo) + ss(hi);
    if (!best || within < best.within) best = { lo, hi, within };
  }
  const pooled = Math.sqrt(best.within / (n - 2));
  const gap = mean(best.hi) - mean(best.lo);
  // An empty stretch between the groups, not just two halves of a spread.
  const hole = best.hi[0] - best.lo.at(-1);
  if (gap < Math.log1p(MODE_MIN_GAP) || gap < MODE_SEPARATION * pooled || hole < MODE_HOLE * pooled) return null;
  return {
    low: { estimate: Math.exp(mean(best.lo)), rounds: best.lo.length },
    high: { estimate: Math.exp(mean(best.hi)), rounds: best.hi.length },
    separation: pooled > 0 ? gap / pooled : Infinity,
  };
}

/** Sum, mean, median, min and max in one object, for the report. */
function summary(xs) {
  const v = finite(xs);
  return { median: median(v), mean: mean(v), min: Math.min(...v), max: Math.max(...v), n: v.length };
}

module.exports = {
  mean,
  sd,
  median,
  percentile,
  t975,
  ratioInterval,
  roundsToReach,
  invert,
  seeded,
  bootstrap,
  twoModes,
  summary,
};
