'use strict';

// Interleaved rounds. This machine is shared and drifts by tens of percent
// over minutes, so no figure is compared with one taken minutes apart: every
// subject's server runs from the start, all but the measured one stopped
// (freeze.js), and each round visits every subject in a rotated order, the
// anchor twice. A subject's ratio to the anchor comes from within one round;
// the report gives its median and range over rounds.
const { freeze, thaw } = require('./freeze');

/** Round `r`'s order: the others rotated by r, the anchor first and again halfway. */
function roundOrder(keys, anchor, r) {
  const others = keys.filter((k) => k !== anchor);
  const shift = others.length ? r % others.length : 0;
  const rotated = [...others.slice(shift), ...others.slice(0, shift)];
  const half = Math.ceil(rotated.length / 2);
  return [anchor, ...rotated.slice(0, half), anchor, ...rotated.slice(half)];
}

/** Whether round `r` of `rounds` is one of the `wanted` (evenly spread, the first included) that also measure c=1. */
function measuresOneConnection(r, rounds, wanted) {
  if (wanted >= rounds) return true;
  if (wanted <= 0) return false;
  // The first round of each of `wanted` equal shares of the rounds.
  const share = rounds / wanted;
  return Math.floor(r / share) !== Math.floor((r - 1) / share);
}

function median(values) {
  const s = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (!s.length) return NaN;
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Median, min and max of per-round values. */
function stats(perRound) {
  const finite = perRound.filter(Number.isFinite);
  return { median: median(finite), min: Math.min(...finite), max: Math.max(...finite), perRound };
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
    if (/^peak/.test(key)) out[key] = Math.max(...values);
    else if (SUMMED.has(key)) out[key] = values.reduce((a, b) => a + b, 0);
    else out[key] = medianFigures(values);
  }
  return out;
}

/**
 * Runs `rounds` rounds over `subjects` (each `{ key, root }`, its server
 * started and frozen); `measure(subject, round)` measures one visit while
 * the subject runs. Returns every visit in order.
 */
async function runRounds(subjects, { anchor, rounds, measure }) {
  const byKey = new Map(subjects.map((s) => [s.key, s]));
  const visits = [];
  for (let round = 0; round < rounds; round++) {
    for (const key of roundOrder([...byKey.keys()], anchor, round)) {
      const subject = byKey.get(key);
      thaw(subject.root);
      try {
        visits.push({ key, round, ...(await measure(subject, round)) });
      } finally {
        freeze(subject.root);
      }
    }
  }
  return visits;
}

// The figures read as ratios to the anchor: [name, figure of a visit].
const RATIO_FIGURES = [
  ['requestsPerSecond', (v) => v.main.requestsPerSecond],
  ['serverCpuUsPerRequest', (v) => v.main.serverCpuUsPerRequest],
  ['oneConnectionMs', (v) => v.single?.latencyMs.mean],
];

/**
 * Per subject: the median of each figure over its visits, and each ratio
 * figure as `stats` of its per-round ratios to the anchor (the anchor's
 * visits in a round averaged). Per round: how far the anchor ran from its
 * median (the machine index), and the machine's steal and softirq.
 */
function summarize(visits, anchor, rounds) {
  const anchorOf = (round, get) => mean(visits.filter((v) => v.key === anchor && v.round === round).map(get));
  const keys = [...new Set(visits.map((v) => v.key))];
  const subjects = new Map();
  for (const key of keys) {
    const own = visits.filter((v) => v.key === key);
    const ratios = {};
    for (const [name, get] of RATIO_FIGURES) {
      const perRound = Array.from({ length: rounds }, (_, round) => {
        const mine = own.filter((v) => v.round === round).map(get);
        return mine.length ? mean(mine) / anchorOf(round, get) : NaN;
      });
      if (perRound.some(Number.isFinite)) ratios[name] = stats(perRound);
    }
    const singles = own.map((v) => v.single).filter(Boolean);
    subjects.set(key, {
      main: medianFigures(own.map((v) => v.main)),
      single: singles.length ? medianFigures(singles) : null,
      runs: own.map((v) => ({ round: v.round, ...v.main })),
      ratios,
    });
  }
  const anchorRps = Array.from({ length: rounds }, (_, r) => anchorOf(r, RATIO_FIGURES[0][1]));
  const anchorCpu = Array.from({ length: rounds }, (_, r) => anchorOf(r, RATIO_FIGURES[1][1]));
  const machine = Array.from({ length: rounds }, (_, round) => {
    const windows = visits.filter((v) => v.round === round && v.main.machine).map((v) => v.main.machine);
    const share = (k) => (windows.length ? mean(windows.map((w) => w[k])) : NaN);
    return {
      round,
      order: visits.filter((v) => v.round === round).map((v) => v.key),
      anchorRequestsPerSecond: anchorRps[round] / median(anchorRps),
      anchorCpuUsPerRequest: anchorCpu[round] / median(anchorCpu),
      steal: share('steal'),
      softirq: share('softirq'),
    };
  });
  return { subjects, rounds: machine };
}

module.exports = { roundOrder, runRounds, summarize, median, medianFigures, measuresOneConnection };
