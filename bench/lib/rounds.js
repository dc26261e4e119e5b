'use strict';

// Interleaved rounds with an adaptive stop. This machine is shared and
// drifts by tens of percent over minutes, so no figure is compared with one
// taken minutes apart: every subject's servers start up front, all but the
// measured one stopped (freeze.js), and each round visits every subject
// still in the rotation in a rotated order, the anchor twice. A subject's
// ratio to the anchor comes from within one round. After `minRounds`, a
// subject leaves the rotation once its ratios' 95% intervals are as tight as
// the stop rule asks; the anchor stays while any other subject runs.
//
// A subject runs on more than one server process, visited in turn round by
// round: a process can settle into a slower state for its whole life (one
// tier's server a quarter to a half costlier in every round of a run: see
// CHANGELOG.md), and with one process per subject a second run does not
// reproduce the first's intervals. JMH's forks answer the JVM's version of it.
const { freeze, thaw } = require('./freeze');
const { mean, median, ratioInterval, twoModes, summary } = require('./stats');

/** Round `r`'s order: the others rotated by r, the anchor first and again halfway. */
function roundOrder(keys, anchor, r) {
  const others = keys.filter((k) => k !== anchor);
  const shift = others.length ? r % others.length : 0;
  const rotated = [...others.slice(shift), ...others.slice(0, shift)];
  const half = Math.ceil(rotated.length / 2);
  return [anchor, ...rotated.slice(0, half), anchor, ...rotated.slice(half)];
}

// Counted over every visit, not typical of one: a failure in any visit shows.
const SUMMED = new Set(['responses', 'errors', 'timeouts', 'non2xx']);

/** Field by field: the median of every number over `list`; memory peaks' maximum; counts' sum. */
function medianFigures(list) {
  const [first] = list;
  if (typeof first === 'number') return median(list);
  if (!first || typeof first !== 'object' || Array.isArray(first) || ArrayBuffer.isView(first)) return first;
  const out = {};
  for (const key of Object.keys(first)) {
    const values = list.map((x) => x?.[key]);
    if (/^peak/.test(key)) out[key] = Math.max(...values.filter(Number.isFinite));
    else if (SUMMED.has(key)) out[key] = values.reduce((a, b) => a + (b ?? 0), 0);
    else out[key] = medianFigures(values);
  }
  return out;
}

// The figures read as ratios to the anchor: [name, the subject's figure of a
// visit, the anchor's]. `wrkRequestsPerSecond` is a second load generator's
// req/s, visited only where autocannon was the limit, over the anchor's.
/**
 * @typedef {{ main: { requestsPerSecond: number, serverCpuUsPerRequest: number },
 *   single?: { latencyMs: { mean: number } }, wrk?: { requestsPerSecond: number } }} VisitFigures
 * @type {[string, (v: VisitFigures) => number, (v: VisitFigures) => number][]}
 */
const RATIO_FIGURES = [
  ['requestsPerSecond', (v) => v.main.requestsPerSecond, (v) => v.main.requestsPerSecond],
  ['serverCpuUsPerRequest', (v) => v.main.serverCpuUsPerRequest, (v) => v.main.serverCpuUsPerRequest],
  ['oneConnectionMs', (v) => v.single?.latencyMs.mean, (v) => v.single?.latencyMs.mean],
  ['wrkRequestsPerSecond', (v) => v.wrk?.requestsPerSecond, (v) => v.main.requestsPerSecond],
];

/** One subject's per-round ratios of one figure to the anchor's visits of the same round. */
function perRoundRatios(visits, key, anchor, [, get, anchorGet]) {
  const rounds = [...new Set(visits.filter((v) => v.key === key).map((v) => v.round))].sort((a, b) => a - b);
  return rounds.map((round) => {
    const mine = mean(visits.filter((v) => v.key === key && v.round === round).map(get));
    const theirs = mean(visits.filter((v) => v.key === anchor && v.round === round).map(anchorGet));
    return mine / theirs;
  });
}

/** A ratio's figures: its 95% interval, the rounds' median and range, and two modes if it has them. */
function ratioStats(perRound) {
  const { median: med, min, max } = summary(perRound);
  return { ...ratioInterval(perRound), median: med, min, max, perRound, modes: twoModes(perRound) };
}

function ratiosOf(visits, key, anchor) {
  const ratios = {};
  for (const figure of RATIO_FIGURES) {
    // The anchor against itself: 1 by definition, whichever generator.
    if (key === anchor && figure[0] === 'wrkRequestsPerSecond') continue;
    const perRound = perRoundRatios(visits, key, anchor, figure);
    if (perRound.some(Number.isFinite)) ratios[figure[0]] = ratioStats(perRound);
  }
  return ratios;
}

/**
 * The stop rule: a subject is done when its CPU-per-request ratio's 95%
 * interval is within ±`cpu` and its req/s ratio's within ±`rps`. A subject
 * whose rounds fall into two modes stays to the cap: no interval describes it.
 */
function stopRule({ cpu = 0.05, rps = 0.1 } = {}) {
  return (ratios) => {
    const c = ratios.serverCpuUsPerRequest;
    const r = ratios.requestsPerSecond;
    if (!c || !r) return null;
    if (c.modes || r.modes) return null;
    return c.halfWidth <= cpu && r.halfWidth <= rps ? `CPU ±${pct(c.halfWidth)}, req/s ±${pct(r.halfWidth)}` : null;
  };
}

const pct = (x) => `${(x * 100).toFixed(1)}%`;

/**
 * Runs rounds over `subjects` (each `{ key, servers: [{ root }] }`, its
 * servers started and frozen); round r visits server r mod their number
 * (the anchor's second visit the next one), `measure(subject, round, server)`
 * measuring it while it runs. From round `minRounds` on, `stop(ratios)` says
 * why a subject may leave (or null); no round starts past `maxRounds` or
 * once it would end after `deadline` (ms since the epoch). Returns every
 * visit in order; per subject, how many rounds it ran and why it stopped;
 * when the first visit began (ms since the epoch) and a visit's mean seconds.
 */
async function runRounds(subjects, { anchor, minRounds, maxRounds, deadline = Infinity, stop, measure, onRound }) {
  const byKey = new Map(subjects.map((s) => [s.key, s]));
  const active = new Set(byKey.keys());
  const stopped = new Map();
  const visits = [];
  let visitMs = 0;
  let visitCount = 0;
  const began = Date.now();
  const leave = (key, round, reason) => {
    active.delete(key);
    stopped.set(key, { rounds: round + 1, reason });
  };
  for (let round = 0; round < maxRounds; round++) {
    const order = roundOrder([...active], anchor, round);
    if (round > 0 && Date.now() + (visitMs / visitCount) * order.length > deadline) {
      for (const key of active) stopped.set(key, { rounds: round, reason: 'time budget' });
      active.clear();
      break;
    }
    const seen = new Map();
    for (const key of order) {
      const subject = byKey.get(key);
      // The anchor's two visits go to different servers: every tier's ratio
      // in a round then divides by both, not always by the same process.
      const nth = seen.get(key) ?? 0;
      seen.set(key, nth + 1);
      const server = (round + nth) % subject.servers.length;
      const { root } = subject.servers[server];
      const started = Date.now();
      thaw(root);
      try {
        visits.push({ key, round, server, ...(await measure(subject, round, server)) });
      } finally {
        freeze(root);
      }
      visitMs += Date.now() - started;
      visitCount++;
    }
    if (round + 1 >= minRounds) {
      for (const key of [...active]) {
        if (key === anchor) continue;
        const reason = stop(ratiosOf(visits, key, anchor));
        if (reason) leave(key, round, `converged: ${reason}`);
      }
      if (active.size === 1 && active.has(anchor)) leave(anchor, round, 'the anchor: stays while any other runs');
    }
    onRound?.(round, [...active]);
    if (!active.size) break;
  }
  for (const key of active) {
    const reason = key === anchor ? 'the anchor: stays while any other runs' : 'round cap';
    stopped.set(key, { rounds: maxRounds, reason });
  }
  return { visits, stopped, began, visitSeconds: visitMs / visitCount / 1000 };
}

/**
 * Per subject: the median of each figure over its visits, and each ratio
 * figure's interval, median and range over its rounds. Per round: how far
 * the anchor ran from its median (the machine index), the speed probe's cost
 * in the anchor's windows over its median, and the machine's steal and
 * softirq share.
 */
function summarize(visits, anchor) {
  const keys = [...new Set(visits.map((v) => v.key))];
  const subjects = new Map();
  for (const key of keys) {
    const own = visits.filter((v) => v.key === key);
    const singles = own.map((v) => v.single).filter(Boolean);
    const wrks = own.map((v) => v.wrk).filter(Boolean);
    subjects.set(key, {
      main: medianFigures(own.map((v) => v.main)),
      single: singles.length ? medianFigures(singles) : null,
      wrk: wrks.length ? medianFigures(wrks) : null,
      runs: own.map((v) => ({ round: v.round, server: v.server, ...v.main })),
      ratios: ratiosOf(visits, key, anchor),
    });
  }
  const roundNumbers = [...new Set(visits.map((v) => v.round))].sort((a, b) => a - b);
  const anchorOf = (round, get) => mean(visits.filter((v) => v.key === anchor && v.round === round).map(get));
  // The speed probe's cost in the anchor's windows over its median: read
  // beside the same server every round (beside another, it reads that one's
  // contention too), and unmoved by tiers leaving the rotation.
  const anchorProbe = roundNumbers.map((r) => anchorOf(r, (v) => v.main.speedProbe?.cpuUs));
  const anchorRps = roundNumbers.map((r) => anchorOf(r, RATIO_FIGURES[0][1]));
  const anchorCpu = roundNumbers.map((r) => anchorOf(r, RATIO_FIGURES[1][1]));
  const machine = roundNumbers.map((round, i) => {
    const windows = visits.filter((v) => v.round === round && v.main.machine).map((v) => v.main.machine);
    const share = (k) => (windows.length ? mean(windows.map((w) => w[k])) : NaN);
    return {
      round,
      order: visits.filter((v) => v.round === round).map((v) => v.key),
      anchorRequestsPerSecond: anchorRps[i] / median(anchorRps),
      anchorCpuUsPerRequest: anchorCpu[i] / median(anchorCpu),
      steal: share('steal'),
      softirq: share('softirq'),
      probe: anchorProbe[i] / median(anchorProbe),
    };
  });
  return { subjects, rounds: machine };
}

module.exports = { roundOrder, runRounds, summarize, medianFigures, stopRule, ratiosOf, ratioStats, RATIO_FIGURES };
