'use strict';

// The README's benchmark summary, written by the harness from a results.json
// (`node bench/run.js --readme README.md`) between two markers, so that no
// figure in it is copied by hand; test/tooling/bench.test.js checks that the README
// holds exactly what the committed report renders.
const fs = require('node:fs');
const { fmt, table, interval, rpsCell, factor, pairRatio, anchorOf, name } = require('./report');

const BEGIN = '<!-- bench:begin -->';
const END = '<!-- bench:end -->';

/** The summary of `report`, whose files are at `reportDir` relative to the README. */
function section(report, reportDir) {
  const { results, crossLine = [], settings, machine } = report;
  const anchor = anchorOf(settings);
  const [w1] = [...new Set(results.map((r) => r.workers))];
  const rows = results.filter((r) => r.workers === w1);
  const ref = rows.find((r) => r.tier === anchor);
  const out = [
    BEGIN,
    `<!-- Written by \`node bench/run.js --readme\` from ${reportDir}/results.json: do not edit by hand. -->`,
    '',
    `From [the committed report](${reportDir}/report.md), a run of ${fmt(settings.wallSeconds / 60, 1)} minutes ` +
      '(its "How it was measured" gives the command, the commit and the date): ' +
      `Node ${machine.node}, ${machine.cpu}, ` +
      `${machine.cores} cores. Each tier against \`${anchor}\` at ${w1} worker${w1 === 1 ? '' : 's'}: ` +
      "the ratio within each interleaved round, over the tier's rounds, with its 95% interval in brackets; " +
      'higher is better.',
    '',
  ];
  const header = ['tier', 'req/s', 'CPU per request', 'c=1 latency', 'peak RSS', 'rounds'];
  const cells = rows.map((r) => [
    name(r),
    rpsCell(r, 1),
    interval(r.ratios?.serverCpuUsPerRequest, { invert: true, digits: 1 }),
    interval(r.ratios?.oneConnectionMs, { invert: true, digits: 1 }),
    factor(ref.peakRssMB / r.peakRssMB, 2),
    String(r.stop?.rounds ?? r.visits),
  ]);
  out.push(table(header, cells), '');
  out.push(
    '"≥": the load generator or the machine, not the server, was the limit; the server does at least that much. ' +
      '"(wrk)": measured with wrk where autocannon was the limit.',
  );
  const pair = settings.frameworkCost;
  const framed = (line) =>
    (line === null ? rows : crossLine.filter((r) => r.line === line)).find((r) => r.tier === pair.framework);
  const bare = (line) =>
    (line === null ? rows : crossLine.filter((r) => r.line === line)).find((r) => r.tier === pair.bare);
  if (pair && framed(null) && bare(null)) {
    const pinned = machine.node.replace(/^v/, '');
    const lines = [null, ...new Set(crossLine.map((r) => r.line).filter((l) => l !== pinned))];
    const parts = lines.map(
      (line) =>
        `Node ${line ?? machine.node.replace(/^v/, '')}: ` +
        `${interval(pairRatio(framed(line), bare(line), 'serverCpuUsPerRequest'))}`,
    );
    out.push(
      `\`${pair.framework}\` spends this many times the CPU per request of \`${pair.bare}\` ` +
        `(the same call without the framework): ${parts.join('; ')}.`,
    );
  }
  out.push('', `![Each tier against ${anchor}, with 95% intervals](${reportDir}/ratios-w${w1}.svg)`, '', END);
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
  if (current === null)
    throw new Error(`${file} has no ${BEGIN} ... ${END} section to write the benchmark summary into`);
  fs.writeFileSync(
    file,
    text.replace(current, () => summary),
  );
}

module.exports = { section, extract, update, BEGIN, END };
