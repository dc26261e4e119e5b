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
const { ratioInterval } = require('./lib/stats');
const { sameMachine } = require('./lib/machine');

const USAGE = `Usage: tier-bench-compare OLD.json NEW.json [options]   (here: node bench/compare.js)

  --rps F          how far a req/s ratio may move (default: 0.10)
  --cpu F          how far a CPU-per-request ratio may move (default: 0.05)
  --any-machine    compare reports from different CPUs, core counts, memory or kernels`;

// [figure, ratio name in results, tolerance option]
const RATIOS = [
  ['req/s ratio', 'requestsPerSecond', 'rps'],
  ['CPU/req ratio', 'serverCpuUsPerRequest', 'cpu'],
];
// A move is judged against the larger of the tolerance and this many times
// the two runs' combined standard error: a move within it is what the
// rounds' own spread gives by chance.
const NOISE_FACTOR = 3;

const rowsOf = (report) => [
  ...report.results,
  ...(report.crossLine ?? []).map((r) => ({ ...r, tier: `${r.tier}@${r.line}` })),
];

/** A ratio's estimate and its standard error on the log scale; older reports carry only per-round values. */
function estimateOf(st) {
  if (!st) return null;
  const iv = Number.isFinite(st.se) ? st : ratioInterval(st.perRound ?? []);
  return Number.isFinite(iv.estimate) ? { estimate: iv.estimate, se: iv.se, modes: st.modes ?? null } : null;
}

function compare(older, newer, tolerance) {
  const rows = [];
  const olds = rowsOf(older);
  for (const n of rowsOf(newer)) {
    const o = olds.find((r) => r.tier === n.tier && r.workers === n.workers);
    if (!o) continue;
    for (const [figure, key, option] of RATIOS) {
      const [a, b] = [estimateOf(o.ratios?.[key]), estimateOf(n.ratios?.[key])];
      if (!a || !b) continue;
      const change = b.estimate / a.estimate - 1;
      const noise = Math.hypot(a.se, b.se);
      const allowed = Math.max(tolerance[option], Number.isFinite(noise) ? Math.expm1(NOISE_FACTOR * noise) : 0);
      const modes = Boolean(a.modes || b.modes);
      rows.push({
        tier: n.tier,
        workers: n.workers,
        figure,
        a: a.estimate,
        b: b.estimate,
        noise,
        change,
        allowed,
        modes,
        moved: Math.abs(Math.log1p(change)) > Math.log1p(allowed),
      });
    }
    rows.push({
      tier: n.tier,
      workers: n.workers,
      figure: 'req/s (absolute)',
      a: o.requestsPerSecond,
      b: n.requestsPerSecond,
      noise: NaN,
      change: n.requestsPerSecond / o.requestsPerSecond - 1,
      allowed: null,
      moved: false,
    });
  }
  return rows;
}

function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      rps: { type: 'string', default: '0.10' },
      cpu: { type: 'string', default: '0.05' },
      'any-machine': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || positionals.length !== 2) {
    console.log(USAGE);
    process.exit(values.help ? 0 : 2);
  }
  // A report's folder names its results.json.
  const read = (file) =>
    JSON.parse(fs.readFileSync(fs.statSync(file).isDirectory() ? path.join(file, 'results.json') : file, 'utf8'));
  const [older, newer] = positionals.map(read);
  const machine = sameMachine(older.machine, newer.machine);
  if (!machine.same && !values['any-machine']) {
    console.error(
      `compare: the reports come from different machines (${machine.differ.join('; ')}): ` +
        'ratios need not carry over. --any-machine compares them anyway.',
    );
    process.exit(2);
  }
  if (!older.results.some((r) => r.ratios) || !newer.results.some((r) => r.ratios)) {
    console.error(
      'compare: a report without interleaved ratios (made before bench/run.js measured in rounds) cannot be compared',
    );
    process.exit(2);
  }
  if (older.machine.node !== newer.machine.node)
    console.log(`Note: the servers ran on Node ${older.machine.node}, then ${newer.machine.node}.\n`);
  const rows = compare(older, newer, { rps: Number(values.rps), cpu: Number(values.cpu) });
  console.log('| tier | workers | figure | old | new | noise (se) | change | allowed | |');
  console.log('|---|---:|---|---:|---:|---:|---:|---:|---|');
  for (const r of rows) {
    const allowed = r.allowed === null ? 'not judged' : `${fmt(r.allowed * 100, 1)}%`;
    const noise = Number.isFinite(r.noise) ? `±${fmt(r.noise * 100, 1)}%` : '';
    const mark = [r.moved && '**moved**', r.modes && 'two modes'].filter(Boolean).join(', ');
    console.log(
      `| ${r.tier} | ${r.workers} | ${r.figure} | ${fmt(r.a, 3)} | ${fmt(r.b, 3)} | ${noise} | ` +
        `${r.change >= 0 ? '+' : ''}${fmt(r.change * 100, 1)}% | ${allowed} | ${mark} |`,
    );
  }
  const judged = rows.filter((r) => r.allowed !== null);
  const moved = judged.filter((r) => r.moved);
  console.log(`\n${judged.length} comparisons: ${moved.length} of ${judged.length} ratios moved more than allowed.`);
  console.log(
    `allowed: the larger of the tolerance (req/s ${fmt(Number(values.rps) * 100, 0)}%, ` +
      `CPU ${fmt(Number(values.cpu) * 100, 0)}%) and ${NOISE_FACTOR}x the noise, ` +
      "the two runs' standard errors of the ratio combined; a move within it is what the rounds' spread alone gives.",
  );
  process.exitCode = moved.length ? 1 : 0;
}

if (require.main === module) main();

module.exports = { compare, NOISE_FACTOR };
