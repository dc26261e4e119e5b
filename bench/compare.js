#!/usr/bin/env node
'use strict';

// Compares two benchmark results.json files figure by figure and flags every
// figure that moved more than the run-to-run spread measured for it (the
// larger of the two files' `--repeat` spreads), or than --spread where a file
// has no repeats. Exit status 1 when anything moved, like diff(1).
//
//   node bench/compare.js bench/results/results.json bench/out/results.json
const fs = require('node:fs');
const { parseArgs } = require('node:util');
const { FIGURES, spread } = require('./lib/spread');
const { fmt } = require('./lib/report');

const USAGE = `Usage: node bench/compare.js OLD.json NEW.json [--spread FRACTION]

  --spread F   the spread assumed for a figure neither file has repeats of (default: 0.1)`;

function compare(older, newer, assumed) {
  const rows = [];
  for (const n of newer.results) {
    const o = older.results.find((r) => r.tier === n.tier && r.workers === n.workers);
    if (!o) continue;
    for (const [figure, get] of FIGURES) {
      const [a, b] = [get(o), get(n)];
      if (!Number.isFinite(a) || !Number.isFinite(b)) continue;
      const measured = [spread(o, get), spread(n, get)].filter((s) => s !== null);
      const allowed = measured.length ? Math.max(...measured) : assumed;
      const change = b / a - 1;
      rows.push({ tier: n.tier, workers: n.workers, figure, a, b, change, allowed, measured: measured.length > 0, moved: Math.abs(change) > allowed });
    }
  }
  return rows;
}

function main() {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { spread: { type: 'string', default: '0.1' }, help: { type: 'boolean', short: 'h' } } });
  if (values.help || positionals.length !== 2) {
    console.log(USAGE);
    process.exit(values.help ? 0 : 2);
  }
  const [older, newer] = positionals.map((file) => JSON.parse(fs.readFileSync(file, 'utf8')));
  const rows = compare(older, newer, Number(values.spread));
  console.log(`| tier | workers | figure | old | new | change | allowed spread | |`);
  console.log(`|---|---:|---|---:|---:|---:|---:|---|`);
  for (const r of rows) {
    const allowed = `${fmt(r.allowed * 100, 1)}%${r.measured ? '' : ' (assumed)'}`;
    console.log(`| ${r.tier} | ${r.workers} | ${r.figure} | ${fmt(r.a, 2)} | ${fmt(r.b, 2)} | ${r.change >= 0 ? '+' : ''}${fmt(r.change * 100, 1)}% | ${allowed} | ${r.moved ? '**moved**' : ''} |`);
  }
  const moved = rows.filter((r) => r.moved);
  console.log(`\n${moved.length} of ${rows.length} figures moved more than their spread.`);
  process.exitCode = moved.length ? 1 : 0;
}

if (require.main === module) main();

module.exports = { compare };
