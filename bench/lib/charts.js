'use strict';

// Small dependency-free SVG charts for the report.

const COLORS = ['#999999', '#1f77b4', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#b7410e', '#bcbd22', '#ff7f0e', '#393b79'];
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

/** "Nice" tick values covering [lo, hi]: powers of ten on a log axis, else 5 steps. */
function ticks(lo, hi, log) {
  if (log) {
    const out = [];
    for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) out.push(10 ** e);
    return out;
  }
  const step = 10 ** Math.floor(Math.log10((hi - lo) / 5 || 1));
  const nice = [1, 2, 5, 10].map((m) => m * step).find((s) => (hi - lo) / s <= 6) ?? step * 10;
  const out = [];
  for (let v = Math.floor(lo / nice) * nice; v <= hi + nice / 2; v += nice) out.push(v);
  return out;
}

const label = (v) => (v >= 1000 ? `${+(v / 1000).toFixed(1)}k` : `${+v.toPrecision(3)}`);

/**
 * Lines of y against x, one per series.
 * @param {{ title: string, xLabel: string, yLabel: string, xs: number[], series: { name: string, ys: (number|null)[] }[], logX?: boolean, logY?: boolean }} chart
 */
function lineChart({ title, xLabel, yLabel, xs, series, logX = false, logY = false }) {
  const width = 760;
  const height = 420;
  const m = { left: 70, right: 150, top: 40, bottom: 50 };
  const values = series.flatMap((s) => s.ys).filter((y) => Number.isFinite(y) && (!logY || y > 0));
  if (values.length === 0) return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="60"><text x="10" y="30">${esc(title)}: no data</text></svg>\n`;
  const yTicks = ticks(logY ? Math.min(...values) : 0, Math.max(...values), logY);
  const [y0, y1] = [yTicks[0], yTicks[yTicks.length - 1]];
  const f = (v, log) => (log ? Math.log10(v) : v);
  const px = (x) => m.left + ((f(x, logX) - f(xs[0], logX)) / (f(xs[xs.length - 1], logX) - f(xs[0], logX) || 1)) * (width - m.left - m.right);
  const py = (y) => height - m.bottom - ((f(y, logY) - f(y0, logY)) / (f(y1, logY) - f(y0, logY) || 1)) * (height - m.top - m.bottom);
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">`,
    '<rect width="100%" height="100%" fill="white"/>',
    `<text x="10" y="22" font-size="14" font-weight="bold">${esc(title)}</text>`,
  ];
  for (const t of yTicks) {
    out.push(`<line x1="${m.left}" x2="${width - m.right}" y1="${py(t).toFixed(1)}" y2="${py(t).toFixed(1)}" stroke="#eee"/>`);
    out.push(`<text x="${m.left - 6}" y="${(py(t) + 4).toFixed(1)}" text-anchor="end">${label(t)}</text>`);
  }
  for (const x of xs) out.push(`<text x="${px(x).toFixed(1)}" y="${height - m.bottom + 16}" text-anchor="middle">${label(x)}</text>`);
  out.push(`<text x="${(m.left + width - m.right) / 2}" y="${height - 12}" text-anchor="middle">${esc(xLabel)}</text>`);
  out.push(`<text transform="translate(16 ${(m.top + height - m.bottom) / 2}) rotate(-90)" text-anchor="middle">${esc(yLabel)}</text>`);
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const points = xs.map((x, j) => [x, s.ys[j]]).filter(([, y]) => Number.isFinite(y) && (!logY || y > 0));
    if (points.length === 0) return;
    out.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${points.map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(' ')}"/>`);
    for (const [x, y] of points) out.push(`<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="3" fill="${color}"/>`);
    out.push(`<text x="${width - m.right + 10}" y="${m.top + 14 * i}" fill="${color}">${esc(s.name)}</text>`);
  });
  out.push('</svg>', '');
  return out.join('\n');
}

/**
 * Horizontal bars of req/s per tier and worker count, p99 written beside
 * each; the baseline grey, reference rows dark, and a row whose req/s is a
 * lower bound (`lowerBound(r)`: the load generator or the machine was the
 * limit) hatched and marked "≥".
 */
function barChart(results, { baseline, lowerBound = () => false } = {}) {
  const fmt = (x, d) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
  const rowH = 22;
  const left = 190;
  const width = 800;
  const barMax = width - left - 190;
  const max = Math.max(...results.map((r) => r.requestsPerSecond));
  const sorted = [...results].sort((a, b) => b.requestsPerSecond - a.requestsPerSecond);
  const height = 40 + sorted.length * rowH + 36;
  const bars = sorted.map((r, i) => {
    const y = 40 + i * rowH;
    const w = Math.max(1, (r.requestsPerSecond / max) * barMax);
    const color = r.tier === baseline ? '#999' : r.reference ? '#b7410e' : '#dea584';
    const bound = lowerBound(r);
    return [
      `<text x="${left - 8}" y="${y + 15}" text-anchor="end">${esc(`${r.tier} (${r.workers}w)`)}</text>`,
      `<rect x="${left}" y="${y + 3}" width="${w.toFixed(1)}" height="${rowH - 6}" fill="${bound ? 'url(#bound)' : color}"/>`,
      `<text x="${left + w + 6}" y="${y + 15}">${bound ? '≥ ' : ''}${fmt(r.requestsPerSecond, 0)} req/s, p99 ${fmt(r.latencyMs.p99, 1)} ms</text>`,
    ].join('');
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    '<defs><pattern id="bound" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#dea584"/><line x1="0" y1="0" x2="0" y2="6" stroke="#7a3b10" stroke-width="2"/></pattern></defs>',
    '<rect width="100%" height="100%" fill="white"/>',
    '<text x="10" y="22" font-size="15" font-weight="bold">Requests per second by tier (workers), closed loop, median of the rounds; p99 beside each bar</text>',
    ...bars,
    `<text x="10" y="${height - 12}" font-size="11">Hatched, "≥": the load generator or the machine was the limit, so the server does at least this much.</text>`,
    '</svg>',
    '',
  ].join('\n');
}

module.exports = { lineChart, barChart };
