'use strict';

// results -> report.md tables and an SVG chart.

const fmt = (x, digits = 1) => (x === null || x === undefined || Number.isNaN(x) ? 'n/a' : x.toFixed(digits));

/** Column definitions: [header, value(row), digits, better ('high' | 'low')]. */
const ABSOLUTE = [
  ['req/s', (r) => r.requestsPerSecond, 0, 'high'],
  ['mean ms', (r) => r.latencyMs.mean, 2, 'low'],
  ['p50 ms', (r) => r.latencyMs.p50, 2, 'low'],
  ['p99 ms', (r) => r.latencyMs.p99, 2, 'low'],
  ['c=1 mean ms', (r) => r.oneConnectionLatencyMs.mean, 3, 'low'],
  ['c=1 p99 ms', (r) => r.oneConnectionLatencyMs.p99, 3, 'low'],
  ['response B', (r) => r.meanResponseBytes, 0, 'low'],
  ['peak PSS MB', (r) => r.peakPssMB, 1, 'low'],
  ['peak RSS MB', (r) => r.peakRssMB, 1, 'low'],
  ['server CPU us/req', (r) => r.serverCpuUsPerRequest, 1, 'low'],
  ['loop p99 ms', (r) => r.eventLoopDelayMs?.p99 ?? null, 1, 'low'],
  ['loop max ms', (r) => r.eventLoopDelayMs?.max ?? null, 1, 'low'],
];
const RELATIVE = [
  ['req/s', (r) => r.requestsPerSecond, 'high'],
  ['p99 latency', (r) => r.latencyMs.p99, 'low'],
  ['c=1 latency', (r) => r.oneConnectionLatencyMs.mean, 'low'],
  ['response bytes', (r) => r.meanResponseBytes, 'low'],
  ['peak PSS', (r) => r.peakPssMB, 'low'],
  ['CPU per request', (r) => r.serverCpuUsPerRequest, 'low'],
];

function flag(r) {
  const problems = [];
  if (r.errors) problems.push(`${r.errors} errors`);
  if (r.timeouts) problems.push(`${r.timeouts} timeouts`);
  if (r.non2xx) problems.push(`${r.non2xx} non-2xx`);
  return problems.length ? `**${problems.join(', ')}**` : 'ok';
}

/** Marks the best value of each column in bold, per worker count. */
function table(header, rows, cells, bests) {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i < 2 ? '---' : '---:')).join('|')}|`];
  rows.forEach((row, i) => {
    lines.push(`| ${cells[i].map((c, j) => (bests[j]?.has(i) ? `**${c}**` : c)).join(' | ')} |`);
  });
  return lines.join('\n');
}

function bestIndices(values, better) {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length < 2) return new Set();
  const best = better === 'high' ? Math.max(...finite) : Math.min(...finite);
  return new Set(values.map((v, i) => (v === best ? i : -1)).filter((i) => i >= 0));
}

function markdown({ results, settings, machine }) {
  const out = ['# QR-code tiers: benchmark report', ''];
  const groups = [...new Set(results.map((r) => r.workers))];
  out.push('## Absolute figures', '');
  for (const workers of groups) {
    const rows = results.filter((r) => r.workers === workers);
    const cells = rows.map((r) => [
      r.tier,
      String(workers),
      ...ABSOLUTE.map(([, get, digits]) => fmt(get(r), digits)),
      ...(r.repeats > 1 ? [`${fmt(r.spread.min, 0)}-${fmt(r.spread.max, 0)}`] : []),
      flag(r),
    ]);
    const bests = [null, null, ...ABSOLUTE.map(([, get, , better]) => bestIndices(rows.map(get), better))];
    const header = ['tier', 'workers', ...ABSOLUTE.map(([h]) => h), ...(rows[0]?.repeats > 1 ? ['req/s range'] : []), 'status'];
    out.push(table(header, rows, cells, bests), '');
  }
  out.push('## Relative to `js` with the same worker count', '', 'Higher is better in every column (each is the factor by which the tier beats `js`).', '');
  for (const workers of groups) {
    const rows = results.filter((r) => r.workers === workers);
    const js = rows.find((r) => r.tier === 'js');
    if (!js) continue;
    const factors = rows.map((r) => RELATIVE.map(([, get, better]) => (better === 'high' ? get(r) / get(js) : get(js) / get(r))));
    const cells = rows.map((r, i) => [r.tier, String(workers), ...factors[i].map((f) => `${fmt(f, 2)}x`)]);
    const bests = [null, null, ...RELATIVE.map((_, j) => bestIndices(factors.map((f) => f[j]), 'high'))];
    out.push(table(['tier', 'workers', ...RELATIVE.map(([h]) => h)], rows, cells, bests), '');
  }
  out.push('## How it was measured', '');
  out.push(`- Command: \`${settings.command}\``);
  out.push(`- Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGB} GB; ${machine.os}`);
  out.push(`- Tools: node ${machine.node}, autocannon ${machine.autocannon}, ${machine.rustc}`);
  out.push(
    `- Load: autocannon in the benchmark process, ${settings.connections} connections, ${settings.warmup} s warm-up on the same connections, then ${settings.duration} s measured; ${settings.texts.length} texts in rotation; one-connection latency: ${settings.oneConnectionSeconds} s at c=1 after each run.`,
  );
  out.push(`- Pinning: ${settings.pin ? `load generator on CPU ${settings.pin.client}, servers on CPUs ${settings.pin.server}` : 'none'}.`);
  const clientMax = Math.max(...results.map((r) => r.loadGeneratorCpuCores));
  out.push(
    `- The load generator used up to ${fmt(clientMax, 2)} CPU cores (per run in results.json)${clientMax > 0.9 ? ': at that level autocannon itself can be the limit, so the fastest tiers\' req/s are lower bounds' : ''}.`,
  );
  out.push('- Response bytes: mean bytes autocannon read per response, headers included.');
  out.push('- Memory: peak PSS (shared pages split between processes, /proc/PID/smaps_rollup) and RSS, summed over the server\'s process tree, sampled every 200 ms.');
  out.push('- Server CPU per request: user + system time of the whole tree (reaped children included) over the measured window, divided by 2xx responses.');
  out.push('- Event-loop delay: `monitorEventLoopDelay` inside node-server (one worker\'s when clustered); n/a for `axum` and `axum-nginx`.');
  out.push('- `axum-nginx`: deploy/nginx.conf (worker_processes auto) in front of one qr_server, started by deploy/start.js; memory and CPU are nginx + qr_server, without the launcher. `axum` and `axum-nginx` ignore the worker count.');
  if (settings.repeat > 1) out.push(`- Each configuration ran ${settings.repeat} times; figures are from the run with the median req/s, "req/s range" is min-max.`);
  if (settings.crossCheck) {
    const c = settings.crossCheck;
    out.push(`- Cross-check on \`axum\`: wrk ${fmt(c.wrk, 0)} req/s vs autocannon ${fmt(c.autocannon, 0)} req/s at ${c.connections} connections (ratio ${fmt(c.autocannon / c.wrk, 2)}).`);
  }
  return `${out.join('\n')}\n`;
}

/** Horizontal bars of req/s per tier and worker count, p99 written beside each. */
function svg(results) {
  const rowH = 22;
  const left = 170;
  const width = 760;
  const barMax = width - left - 170;
  const max = Math.max(...results.map((r) => r.requestsPerSecond));
  const sorted = [...results].sort((a, b) => b.requestsPerSecond - a.requestsPerSecond);
  const height = 40 + sorted.length * rowH + 20;
  const esc = (s) => String(s).replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]);
  const bars = sorted.map((r, i) => {
    const y = 40 + i * rowH;
    const w = Math.max(1, (r.requestsPerSecond / max) * barMax);
    const color = r.tier === 'js' ? '#999' : r.tier.startsWith('axum') ? '#b7410e' : '#dea584';
    return [
      `<text x="${left - 8}" y="${y + 15}" text-anchor="end">${esc(`${r.tier} (${r.workers}w)`)}</text>`,
      `<rect x="${left}" y="${y + 3}" width="${w.toFixed(1)}" height="${rowH - 6}" fill="${color}"/>`,
      `<text x="${left + w + 6}" y="${y + 15}">${fmt(r.requestsPerSecond, 0)} req/s, p99 ${fmt(r.latencyMs.p99, 1)} ms</text>`,
    ].join('');
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="10" y="22" font-size="15" font-weight="bold">Requests per second by tier (workers), p99 latency beside each bar</text>`,
    ...bars,
    '</svg>',
    '',
  ].join('\n');
}

module.exports = { markdown, svg };
