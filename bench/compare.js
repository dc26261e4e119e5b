#!/usr/bin/env node
'use strict';

// Compares two benchmark results.json files by what a second run on a
// drifting machine reproduces: each tier's ratios to the anchor, taken within
// interleaved rounds (median over rounds). Absolute figures move with the
// machine and are shown, not judged. Refuses reports from different kinds of
// machine unless --any-machine. Exit status 1 when a ratio moved past its
// tolerance, like diff(1); 2 when the two cannot be compared.
//
//   node bench/compare.js bench/results/results.json bench/out/results.json
const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { fmt } = require('./lib/report');
const { sameMachine } = require('./lib/machine');

const USAGE = `Usage: tier-bench-compare OLD.json NEW.json [options]   (here: node bench/compare.js)

  --rps F          how far a req/s ratio may move (default: 0.10)
  --cpu F          how far a CPU-per-request ratio may move (default: 0.05)
  --any-machine    compare reports from different CPUs, core counts or memory`;

// [figure, ratio name in results, tolerance option]
const RATIOS = [
  ['req/s ratio', 'requestsPerSecond', 'rps'],
  ['CPU/req ratio', 'serverCpuUsPerRequest', 'cpu'],
];

/**
 * How far a median of per-round ratios moves by chance alone, relative to it:
 * the median's standard error, 1.25 sd / sqrt(rounds) (normal rounds).
 */
function noiseOf(st) {
  const xs = (st?.perRound ?? []).filter(Number.isFinite);
  if (xs.length < 2) return NaN;
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1));
  return (1.2533 * sd) / Math.sqrt(xs.length) / st.median;
}

const rowsOf = (report) => [...report.results, ...(report.crossLine ?? []).map((r) => ({ ...r, tier: `${r.tier}@${r.line}` }))];

function compare(older, newer, tolerance) {
  const rows = [];
  const olds = rowsOf(older);
  for (const n of rowsOf(newer)) {
    const o = olds.find((r) => r.tier === n.tier && r.workers === n.workers);
    if (!o) continue;
    for (const [figure, key, option] of RATIOS) {
      const [a, b] = [o.ratios?.[key]?.median, n.ratios?.[key]?.median];
      if (!Number.isFinite(a) || !Number.isFinite(b)) continue;
      const change = b / a - 1;
      // Both runs' chance alone, combined: a move several times this is drift.
      const noise = Math.hypot(noiseOf(o.ratios[key]), noiseOf(n.ratios[key]));
      rows.push({ tier: n.tier, workers: n.workers, figure, a, b, noise, change, allowed: tolerance[option], moved: Math.abs(change) > tolerance[option] });
    }
    rows.push({ tier: n.tier, workers: n.workers, figure: 'req/s (absolute)', a: o.requestsPerSecond, b: n.requestsPerSecond, noise: NaN, change: n.requestsPerSecond / o.requestsPerSecond - 1, allowed: null, moved: false });
  }
  return rows;
}

function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { rps: { type: 'string', default: '0.10' }, cpu: { type: 'string', default: '0.05' }, 'any-machine': { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help || positionals.length !== 2) {
    console.log(USAGE);
    process.exit(values.help ? 0 : 2);
  }
  // A report's folder names its results.json.
  const read = (file) => JSON.parse(fs.readFileSync(fs.statSync(file).isDirectory() ? path.join(file, 'results.json') : file, 'utf8'));
  const [older, newer] = positionals.map(read);
  const machine = sameMachine(older.machine, newer.machine);
  if (!machine.same && !values['any-machine']) {
    console.error(`compare: the reports come from different machines (${machine.differ.join('; ')}): ratios need not carry over. --any-machine compares them anyway.`);
    process.exit(2);
  }
  if (!older.results.some((r) => r.ratios) || !newer.results.some((r) => r.ratios)) {
    console.error('compare: a report without interleaved ratios (made before bench/run.js measured in rounds) cannot be compared');
    process.exit(2);
  }
  if (older.machine.node !== newer.machine.node) console.log(`Note: the servers ran on Node ${older.machine.node}, then ${newer.machine.node}.\n`);
  const rows = compare(older, newer, { rps: Number(values.rps), cpu: Number(values.cpu) });
  console.log('| tier | workers | figure | old | new | noise | change | allowed | |');
  console.log('|---|---:|---|---:|---:|---:|---:|---:|---|');
  for (const r of rows) {
    const allowed = r.allowed === null ? 'not judged' : `${fmt(r.allowed * 100, 1)}%`;
    const noise = Number.isFinite(r.noise) ? `±${fmt(r.noise * 100, 1)}%` : '';
    console.log(`| ${r.tier} | ${r.workers} | ${r.figure} | ${fmt(r.a, 3)} | ${fmt(r.b, 3)} | ${noise} | ${r.change >= 0 ? '+' : ''}${fmt(r.change * 100, 1)}% | ${allowed} | ${r.moved ? '**moved**' : ''} |`);
  }
  const judged = rows.filter((r) => r.allowed !== null);
  const moved = judged.filter((r) => r.moved);
  console.log(`\n${moved.length} of ${judged.length} ratios moved more than allowed.`);
  console.log('noise: the standard error of a median of per-round ratios, both runs combined (1.25 sd / sqrt(rounds) each); a move within twice it is what the rounds\' spread alone would give.');
  process.exitCode = moved.length ? 1 : 0;
}

if (require.main === module) main();

module.exports = { compare };
