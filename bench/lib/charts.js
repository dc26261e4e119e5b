'use strict';

// Small dependency-free SVG charts for the report.

const COLORS = [
  '#999999',
  '#1f77b4',
  '#2ca02c',
  '#d62728',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#17becf',
  '#b7410e',
  '#bcbd22',
  '#ff7f0e',
  '#393b79',
];
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
 * @param {{ title: string, xLabel: string, yLabel: string, xs: number[],
 *   series: { name: string, ys: (number|null)[] }[], logX?: boolean, logY?: boolean }} chart
 */
function lineChart({ title, xLabel, yLabel, xs, series, logX = false, logY = false }) {
  const width = 760;
  const height = 420;
  const m = { left: 70, right: 150, top: 40, bottom: 50 };
  const values = series.flatMap((s) => s.ys).filter((y) => Number.isFinite(y) && (!logY || y > 0));
  if (values.length === 0)
    return (
      `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="60">` +
      `<text x="10" y="30">${esc(title)}: no data</text></svg>\n`
    );
  const yTicks = ticks(logY ? Math.min(...values) : 0, Math.max(...values), logY);
  const [y0, y1] = [yTicks[0], yTicks[yTicks.length - 1]];
  const f = (v, log) => (log ? Math.log10(v) : v);
  const px = (x) =>
    m.left +
    ((f(x, logX) - f(xs[0], logX)) / (f(xs[xs.length - 1], logX) - f(xs[0], logX) || 1)) * (width - m.left - m.right);
  const py = (y) =>
    height - m.bottom - ((f(y, logY) - f(y0, logY)) / (f(y1, logY) - f(y0, logY) || 1)) * (height - m.top - m.bottom);
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ` +
      'font-family="sans-serif" font-size="11">',
    '<rect width="100%" height="100%" fill="white"/>',
    `<text x="10" y="22" font-size="14" font-weight="bold">${esc(title)}</text>`,
  ];
  for (const t of yTicks) {
    out.push(
      `<line x1="${m.left}" x2="${width - m.right}" y1="${py(t).toFixed(1)}" y2="${py(t).toFixed(1)}" stroke="#eee"/>`,
    );
    out.push(`<text x="${m.left - 6}" y="${(py(t) + 4).toFixed(1)}" text-anchor="end">${label(t)}</text>`);
  }
  for (const x of xs)
    out.push(`<text x="${px(x).toFixed(1)}" y="${height - m.bottom + 16}" text-anchor="middle">${label(x)}</text>`);
  out.push(`<text x="${(m.left + width - m.right) / 2}" y="${height - 12}" text-anchor="middle">${esc(xLabel)}</text>`);
  out.push(
    `<text transform="translate(16 ${(m.top + height - m.bottom) / 2}) rotate(-90)" text-anchor="middle">` +
      `${esc(yLabel)}</text>`,
  );
  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const points = xs.map((x, j) => [x, s.ys[j]]).filter(([, y]) => Number.isFinite(y) && (!logY || y > 0));
    if (points.length === 0) return;
    out.push(
      `<polyline fill="none" stroke="${color}" stroke-width="2" ` +
        `points="${points.map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(' ')}"/>`,
    );
    for (const [x, y] of points)
      out.push(`<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="3" fill="${color}"/>`);
    out.push(`<text x="${width - m.right + 10}" y="${m.top + 14 * i}" fill="${color}">${esc(s.name)}</text>`);
  });
  out.push('</svg>', '');
  return out.join('\n');
}

/**
 * Each tier's ratios to the anchor with their 95% intervals, as points with
 * error bars on a log axis: req/s on the left, CPU per request (inverted:
 * higher is better) on the right, tiers grouped by their configuration's
 * `group` (the rung). Two modes are drawn as two points; a lower bound
 * ("≥") as an open point with an arrow to the right.
 * @param {any[]} rows the tiers' results (report.js)
 * @param {{ anchor: string, title: string, lowerBound?: (row: any) => boolean, rps?: (row: any) => object }} options
 */
function ratioChart(rows, { anchor, title, lowerBound = () => false, rps = (r) => r.ratios?.requestsPerSecond }) {
  const rowH = 20;
  const left = 170;
  const panel = 290;
  const gap = 40;
  const width = left + 2 * panel + gap + 20;
  const grouped = [];
  for (const r of rows) {
    const g = r.group ?? (r.reference ? 'reference' : '');
    let entry = grouped.find((x) => x.group === g);
    if (!entry) {
      entry = { group: g, rows: [] };
      grouped.push(entry);
    }
    entry.rows.push(r);
  }
  const lines = grouped
    .flatMap((g) => [{ heading: g.group }, ...g.rows.map((r) => ({ r }))])
    .filter((l) => l.r || l.heading);
  const height = 60 + lines.length * rowH + 30;
  const figures = {
    rps: (r) => rps(r),
    cpu: (r) => {
      const c = r.ratios?.serverCpuUsPerRequest;
      if (!c) return null;
      const flip = (m) => m && { ...m, estimate: 1 / m.estimate };
      return {
        ...c,
        estimate: 1 / c.estimate,
        low: 1 / c.high,
        high: 1 / c.low,
        modes: c.modes && { low: flip(c.modes.low), high: flip(c.modes.high) },
      };
    },
  };
  const values = rows
    .flatMap((r) =>
      ['rps', 'cpu'].flatMap((k) => {
        const st = figures[k](r);
        return st ? [st.estimate, st.low, st.high] : [];
      }),
    )
    .filter((v) => Number.isFinite(v) && v > 0);
  const lo = 10 ** Math.floor(Math.log10(Math.min(1, ...values)));
  const hi = 10 ** Math.ceil(Math.log10(Math.max(1, ...values)));
  const axis = ticks(lo, hi, true);
  const px = (x0, v) => x0 + ((Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo) || 1)) * panel;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ` +
      'font-family="sans-serif" font-size="11">',
    '<rect width="100%" height="100%" fill="white"/>',
    `<text x="10" y="20" font-size="14" font-weight="bold">${esc(title)}</text>`,
  ];
  const panels = [
    ['rps', left, `req/s against ${anchor} (log; higher is better)`],
    ['cpu', left + panel + gap, `less CPU per request than ${anchor} (log)`],
  ];
  for (const [, x0, heading] of panels) {
    out.push(`<text x="${x0}" y="44" font-weight="bold">${esc(heading)}</text>`);
    for (const t of axis) {
      const x = px(x0, t).toFixed(1);
      out.push(`<line x1="${x}" x2="${x}" y1="52" y2="${height - 26}" stroke="${t === 1 ? '#999' : '#eee'}"/>`);
      out.push(`<text x="${x}" y="${height - 12}" text-anchor="middle">${+t.toPrecision(3)}x</text>`);
    }
  }
  lines.forEach((line, i) => {
    const y = 60 + i * rowH + rowH / 2;
    if (line.heading !== undefined) {
      out.push(`<text x="10" y="${y + 4}" font-weight="bold" fill="#555">${esc(line.heading)}</text>`);
      return;
    }
    const { r } = line;
    out.push(`<text x="${left - 8}" y="${y + 4}" text-anchor="end">${esc(r.tier)}</text>`);
    for (const [key, x0] of panels) {
      const st = figures[key](r);
      if (!st || !Number.isFinite(st.estimate)) continue;
      const color = r.tier === anchor ? '#999' : r.reference ? '#b7410e' : '#1f77b4';
      const points = st.modes ? [st.modes.low.estimate, st.modes.high.estimate] : [st.estimate];
      if (!st.modes && Number.isFinite(st.low)) {
        out.push(
          `<line x1="${px(x0, st.low).toFixed(1)}" x2="${px(x0, st.high).toFixed(1)}" y1="${y}" y2="${y}" ` +
            `stroke="${color}" stroke-width="2"/>`,
        );
      }
      const open = key === 'rps' && lowerBound(r);
      for (const v of points) {
        const x = px(x0, v).toFixed(1);
        out.push(
          `<circle cx="${x}" cy="${y}" r="4" fill="${open ? 'white' : color}" stroke="${color}" stroke-width="2"/>`,
        );
        if (open) out.push(`<text x="${(+x + 7).toFixed(1)}" y="${y + 4}" fill="${color}">≥</text>`);
      }
      if (st.modes)
        out.push(`<text x="${(px(x0, points[1]) + 8).toFixed(1)}" y="${y + 4}" fill="#d62728">two modes</text>`);
    }
  });
  out.push('</svg>', '');
  return out.join('\n');
}

module.exports = { lineChart, ratioChart };
