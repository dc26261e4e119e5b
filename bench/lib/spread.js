'use strict';

// Run-to-run spread: how far repeated runs of one configuration disagree.

// The main-run figures compared between runs and between reports.
const FIGURES = [
  ['req/s', (r) => r.requestsPerSecond],
  ['p99 ms', (r) => r.latencyMs.p99],
  ['c=1 mean ms', (r) => r.oneConnectionLatencyMs.mean],
  ['server CPU us/req', (r) => r.serverCpuUsPerRequest],
  ['peak PSS MB', (r) => r.peakPssMB],
  ['body B', (r) => r.meanBodyBytes],
];

/** (max - min) / median of `get` over a result's runs; null with fewer than two runs. */
function spread(result, get) {
  const values = (result.runs ?? []).map(get).filter(Number.isFinite).sort((a, b) => a - b);
  if (values.length < 2) return null;
  const median = values[values.length >> 1];
  return (values[values.length - 1] - values[0]) / median;
}

module.exports = { FIGURES, spread };
