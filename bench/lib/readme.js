'use strict';

// The README's benchmark summary, written by the harness from a results.json
// (`node bench/run.js --readme README.md`) between two markers, so that no
// figure in it is copied by hand; test/tooling/bench.test.js checks that the README
// holds exactly what the committed report renders.
const fs = require('node:fs');
const { fmt, table, ranged, factor, limitOf, pairRatio, rateAt, commonRate, baselineOf, anchorOf, name } = require('./report');

const BEGIN = '<!-- bench:begin -->';
const END = '<!-- bench:end -->';

/** The summary of `report`, whose files are at `reportDir` relative to the README. */
function section(report, reportDir) {
  const { results, crossLine = [], settings, machine } = report;
  const anchor = anchorOf(settings);
  const baseline = baselineOf(settings);
  const [w1, w2] = [...new Set(results.map((r) => r.workers))];
  const rows = results.filter((r) => r.workers === w1);
  const ref = rows.find((r) => r.tier === anchor);
  const common = commonRate(settings);
  const at = (tier, workers) => results.find((r) => r.tier === tier && r.workers === workers);
  const out = [
    BEGIN,
    `<!-- Written by \`node bench/run.js --readme\` from ${reportDir}/results.json: do not edit by hand. -->`,
    '',
    `From [the committed report](${reportDir}/report.md), made with \`${settings.command}\` at ${settings.commit ?? 'an unrecorded commit'} on ${settings.date ?? 'an unrecorded date'}: Node ${machine.node}, ${machine.cpu}, ${machine.cores} cores. Each tier against \`${anchor}\` at ${w1} node-server worker${w1 === 1 ? '' : 's'}, the median of ${settings.rounds} interleaved rounds' ratios (lowest-highest round in brackets); higher is better.`,
    '',
  ];
  const header = ['tier', 'req/s', 'CPU per request', 'c=1 latency', ...(common ? [`p99 at ${fmt(rateAt(ref, baseline, common)?.targetRate, 0)} req/s`] : []), 'peak PSS', ...(w2 ? [`req/s at ${w2} workers, against \`${anchor}\` at ${w2}`] : [])];
  const cells = rows.map((r) => {
    const p99 = (x) => rateAt(x, baseline, common)?.latencyMs.p99;
    const other = w2 && at(r.tier, w2);
    const bound = (x) => (limitOf(x, machine.cores) ? '≥ ' : '');
    return [
      name(r),
      `${bound(r)}${ranged(r.ratios?.requestsPerSecond, false, 1)}`,
      ranged(r.ratios?.serverCpuUsPerRequest, true, 1),
      ranged(r.ratios?.oneConnectionMs, true, 1),
      ...(common ? [factor(p99(ref) / p99(r), 1)] : []),
      factor(ref.peakPssMB / r.peakPssMB, 2),
      ...(w2 ? [other ? `${bound(other)}${ranged(other.ratios?.requestsPerSecond, false, 1)}` : 'one process'] : []),
    ];
  });
  out.push(table(header, cells), '');
  out.push(`"≥": the load generator or the machine, not the server, was the limit; the server does at least that much.`);
  const pair = settings.frameworkCost;
  if (pair && crossLine.length) {
    const framed = (line) => (line === null ? rows.find((r) => r.tier === pair.framework) : crossLine.find((r) => r.line === line && r.tier === pair.framework));
    const bare = (line) => (line === null ? rows.find((r) => r.tier === pair.bare) : crossLine.find((r) => r.line === line && r.tier === pair.bare));
    const lines = [null, ...new Set(crossLine.map((r) => r.line))];
    const parts = lines.map((line) => `Node ${line ?? machine.node.replace(/^v/, '')}: ${ranged(pairRatio(framed(line), bare(line), 'serverCpuUsPerRequest'), false, 2)}`);
    out.push(`\`${pair.framework}\` spends this many times the CPU per request of \`${pair.bare}\` (the same call without the framework): ${parts.join('; ')}.`);
  }
  out.push('', END);
  return out.join('\n');
}

/** The text between the markers of `text` (markers included), or null. */
function extract(text) {
  const begin = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  return begin === -1 || end < begin ? null : text.slice(begin, end + END.length);
}

/** Replaces the summary in `file`; the markers must be there already. */
function update(file, summary) {
  const text = fs.readFileSync(file, 'utf8');
  const current = extract(text);
  if (current === null) throw new Error(`${file} has no ${BEGIN} ... ${END} section to write the benchmark summary into`);
  fs.writeFileSync(file, text.replace(current, () => summary));
}

module.exports = { section, extract, update, BEGIN, END };
