'use strict';

// Soak results -> report.md and an SVG of RSS over time per tier.
const { MAX_GROWTH } = require('./soak');

const fmt = (x, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');
const esc = (s) => String(s).replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]);

function verdict(r) {
  const problems = [];
  if (r.rss.growth >= MAX_GROWTH) problems.push(`RSS +${fmt(r.rss.growth * 100)}%`);
  if (r.errors) problems.push(`${r.errors} errors`);
  if (r.non2xx) problems.push(`${r.non2xx} non-2xx`);
  return problems.length ? `**FAIL: ${problems.join(', ')}**` : 'pass';
}

function markdown({ results, settings, machine }) {
  const out = [`# ${settings.title}: soak report`, ''];
  out.push(
    `Pass: RSS of the server's process tree grows less than ${MAX_GROWTH * 100}% from the start to the end ` +
      'of the measured window, with zero errors and zero non-2xx.',
    '',
  );
  out.push(
    '| tier | minutes | requests | req/s | RSS start MB | RSS end MB | RSS peak MB | growth | trend MB/min ' +
      '| errors | non-2xx | verdict |',
  );
  out.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const r of results) {
    out.push(
      `| ${r.tier} | ${fmt(r.seconds / 60)} | ${r.responses} | ${fmt(r.requestsPerSecond, 0)} ` +
        `| ${fmt(r.rss.startMB)} | ${fmt(r.rss.endMB)} | ${fmt(r.rss.peakMB)} ` +
        `| ${r.rss.growth >= 0 ? '+' : ''}${fmt(r.rss.growth * 100, 2)}% | ${fmt(r.rss.trendMBPerMinute, 3)} ` +
        `| ${r.errors} | ${r.non2xx} | ${verdict(r)} |`,
    );
  }
  out.push('', '## How it was measured', '');
  out.push(`- Command: \`${settings.command}\``);
  out.push(
    `- Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGB} GB; ${machine.os}; ` +
      `node ${machine.node}, autocannon ${machine.autocannon}`,
  );
  out.push(
    `- Load: autocannon in the benchmark process, ${settings.connections} connections, ` +
      `${settings.requests.paths} requests in rotation (${settings.requests.description}), one server per tier; ` +
      `${settings.warmup} s warm-up on the same connections, then ${fmt(settings.duration / 60)} min measured.`,
  );
  out.push(
    "- RSS: VmRSS summed over the server's process tree " +
      `(${settings.notes?.tree ?? 'the server and its child processes'}), ` +
      'sampled every second. "start" and "end" are the means of the first and last tenth of the measured window; ' +
      '"trend" is the least-squares slope over all samples.',
  );
  out.push('- RSS over time: chart.svg; every sample: results.json.');
  return `${out.join('\n')}\n`;
}

/** RSS (MB) over the measured minutes, one line per tier. */
function svg(results) {
  const width = 760;
  const height = 360;
  const pad = { left: 60, right: 150, top: 40, bottom: 40 };
  const colors = ['#b7410e', '#2a6f97', '#588157', '#6d597a', '#999'];
  const all = results.flatMap((r) => r.samples);
  const maxX = Math.max(...all.map((s) => s.second)) / 60;
  const maxY = Math.max(...all.map((s) => s.rssMB)) * 1.1;
  const x = (minutes) => pad.left + (minutes / maxX) * (width - pad.left - pad.right);
  const y = (mb) => height - pad.bottom - (mb / maxY) * (height - pad.top - pad.bottom);
  const lines = results.map((r, i) => {
    const points = r.samples.map((s) => `${x(s.second / 60).toFixed(1)},${y(s.rssMB).toFixed(1)}`).join(' ');
    const last = r.samples[r.samples.length - 1];
    const color = colors[i % colors.length];
    return [
      `<polyline fill="none" stroke="${color}" stroke-width="1.5" points="${points}"/>`,
      `<text x="${x(last.second / 60) + 6}" y="${y(last.rssMB) + 4}" fill="${color}">` +
        `${esc(r.tier)} ${fmt(last.rssMB, 0)} MB</text>`,
    ].join('');
  });
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const mb = f * maxY;
    return (
      `<text x="${pad.left - 6}" y="${y(mb) + 4}" text-anchor="end">${fmt(mb, 0)}</text>` +
      `<line x1="${pad.left}" x2="${width - pad.right}" y1="${y(mb)}" y2="${y(mb)}" stroke="#eee"/>`
    );
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ` +
      'font-family="sans-serif" font-size="12">',
    '<rect width="100%" height="100%" fill="white"/>',
    '<text x="10" y="22" font-size="15" font-weight="bold">' +
      "Soak: RSS of each server's process tree (MB) over the measured minutes</text>",
    ...ticks,
    `<text x="${x(maxX)}" y="${height - 12}" text-anchor="end">${fmt(maxX, 0)} min</text>`,
    ...lines,
    '</svg>',
    '',
  ].join('\n');
}

module.exports = { markdown, svg };
