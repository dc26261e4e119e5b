'use strict';

// results.json -> report.md and its SVG charts.
const { lineChart, barChart } = require('./charts');
const { spread } = require('./spread');

const fmt = (x, digits = 1) => (x === null || x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(digits));

/** Column definitions: [header, value(row), digits, better ('high' | 'low')]. */
const ABSOLUTE = [
  ['req/s', (r) => r.requestsPerSecond, 0, 'high'],
  ['p50 ms', (r) => r.latencyMs.p50, 2, 'low'],
  ['p99 ms', (r) => r.latencyMs.p99, 2, 'low'],
  ['c=1 mean ms', (r) => r.oneConnectionLatencyMs.mean, 3, 'low'],
  ['c=1 p99 ms', (r) => r.oneConnectionLatencyMs.p99, 3, 'low'],
  ['body B', (r) => r.meanBodyBytes, 0, 'low'],
  ['wire B', (r) => r.meanWireBytes, 0, 'low'],
  ['peak PSS MB', (r) => r.peakPssMB, 1, 'low'],
  ['peak RSS MB', (r) => r.peakRssMB, 1, 'low'],
  ['server CPU us/req', (r) => r.serverCpuUsPerRequest, 1, 'low'],
  ['loop p99 ms', (r) => r.eventLoopDelayMs?.p99 ?? null, 2, 'low'],
  ['loop max ms', (r) => r.eventLoopDelayMs?.max ?? null, 1, 'low'],
  ['load gen cores', (r) => r.loadGeneratorCpuCores, 2, null],
];
const RELATIVE = [
  ['req/s', (r) => r.requestsPerSecond, 'high'],
  ['p99 latency', (r) => r.latencyMs.p99, 'low'],
  ['c=1 latency', (r) => r.oneConnectionLatencyMs.mean, 'low'],
  ['body bytes', (r) => r.meanBodyBytes, 'low'],
  ['wire bytes', (r) => r.meanWireBytes, 'low'],
  ['peak PSS', (r) => r.peakPssMB, 'low'],
  ['CPU per request', (r) => r.serverCpuUsPerRequest, 'low'],
];
// Past this share of a core the load generator may be what limits req/s.
const CLIENT_BOUND_CORES = 0.9;
// Past this share of a core, on a machine it shares with the server, its CPU
// is the server's loss.
const SHARED_BOUND_CORES = 0.5;

function flag(r) {
  const problems = [];
  if (r.errors) problems.push(`${r.errors} errors`);
  if (r.timeouts) problems.push(`${r.timeouts} timeouts`);
  if (r.non2xx) problems.push(`${r.non2xx} non-2xx`);
  return problems.length ? `**${problems.join(', ')}**` : 'ok';
}

/** A markdown table; `bests[j]` holds the row indices to bold in column j. */
function table(header, cells, bests = []) {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`];
  cells.forEach((row, i) => lines.push(`| ${row.map((c, j) => (bests[j]?.has(i) ? `**${c}**` : c)).join(' | ')} |`));
  return lines.join('\n');
}

function bestIndices(values, better) {
  const finite = values.filter((v) => Number.isFinite(v));
  if (!better || finite.length < 2) return new Set();
  const best = better === 'high' ? Math.max(...finite) : Math.min(...finite);
  return new Set(values.map((v, i) => (v === best ? i : -1)).filter((i) => i >= 0));
}

// Benchmark-only rows (the configuration's `reference` tiers); results from
// before configurations named them by tier.
const isReference = (r) => r.reference ?? (r.tier === 'napi-node-http' || r.tier === 'axum-nginx');
const name = (r) => (isReference(r) ? `${r.tier} (ref.)` : r.tier);
const baselineOf = (settings) => ('baseline' in settings ? settings.baseline : 'js');

function mainTables(results, settings, out) {
  const groups = [...new Set(results.map((r) => r.workers))];
  out.push('## Main run: closed loop', '');
  for (const workers of groups) {
    const rows = results.filter((r) => r.workers === workers);
    const repeats = rows[0]?.repeats > 1;
    const cells = rows.map((r) => [
      name(r),
      String(workers),
      ...ABSOLUTE.map(([, get, digits]) => fmt(get(r), digits)),
      ...(repeats ? [`${fmt(r.spread.min, 0)}-${fmt(r.spread.max, 0)}`] : []),
      flag(r),
    ]);
    const bests = [null, null, ...ABSOLUTE.map(([, get, , better]) => bestIndices(rows.map(get), better))];
    out.push(table(['tier', 'workers', ...ABSOLUTE.map(([h]) => h), ...(repeats ? ['req/s range'] : []), 'status'], cells, bests), '');
  }
  const baseline = baselineOf(settings);
  if (!baseline || !results.some((r) => r.tier === baseline)) return;
  out.push(`## Relative to \`${baseline}\` with the same worker count`, '', `Higher is better in every column (each is the factor by which the tier beats \`${baseline}\`).`, '');
  for (const workers of groups) {
    const rows = results.filter((r) => r.workers === workers);
    const js = rows.find((r) => r.tier === baseline);
    if (!js) continue;
    const factors = rows.map((r) => RELATIVE.map(([, get, better]) => (better === 'high' ? get(r) / get(js) : get(js) / get(r))));
    const cells = rows.map((r, i) => [name(r), String(workers), ...factors[i].map((f) => `${fmt(f, 2)}x`)]);
    const bests = [null, null, ...RELATIVE.map((_, j) => bestIndices(factors.map((f) => f[j]), 'high'))];
    out.push(table(['tier', 'workers', ...RELATIVE.map(([h]) => h)], cells, bests), '');
  }
}

function frameworkCost(results, out) {
  const w1 = results.filter((r) => r.workers === results[0].workers);
  const bare = w1.find((r) => r.tier === 'napi-node-http');
  const napi = w1.find((r) => r.tier === 'napi');
  if (!bare || !napi) return;
  const extra = napi.serverCpuUsPerRequest - bare.serverCpuUsPerRequest;
  out.push('## What express costs', '');
  out.push(
    'The same `generateQrCodeSync` call behind bare `node:http` (`napi-node-http`, one process, none of node-server\'s guards) and behind express in node-server (`napi`):',
    '',
    table(
      ['server', 'req/s', 'server CPU us/req', 'p99 ms'],
      [bare, napi].map((r) => [r.tier === 'napi' ? 'express + node-server (`napi`)' : 'bare node:http (`napi-node-http`)', fmt(r.requestsPerSecond, 0), fmt(r.serverCpuUsPerRequest, 1), fmt(r.latencyMs.p99, 2)]),
    ),
    '',
    `express and node-server's guards add ${fmt(extra, 1)} us of CPU per request (${fmt((extra / napi.serverCpuUsPerRequest) * 100, 0)}% of the \`napi\` tier's); \`axum\` serves a request in ${fmt(w1.find((r) => r.tier === 'axum')?.serverCpuUsPerRequest, 1)} us.`,
    '',
  );
}

function costPerMillion(results, out) {
  out.push('## Cost per million requests', '', 'At saturation in the main run: CPU-seconds the whole server tree spent per million answered requests, the requests one CPU core answers per second at that cost, and the memory held meanwhile.', '');
  const cells = results.map((r) => [name(r), String(r.workers), fmt(r.serverCpuUsPerRequest, 0), fmt(1e6 / r.serverCpuUsPerRequest, 0), fmt(r.peakPssMB, 1)]);
  out.push(table(['tier', 'workers', 'CPU-seconds per 1M requests', 'req/s per CPU core', 'peak PSS MB'], cells), '');
}

function fixedRate(results, settings, out) {
  const rows = results.filter((r) => r.fixedRate?.length);
  if (!rows.length) return;
  out.push('## Latency at fixed request rates (open loop)', '');
  out.push(
    `Requests leave on a fixed schedule (${settings.curves.rateFractions.map((f) => `${f * 100}%`).join(', ')} of \`${baselineOf(settings)}\`'s and of the tier's own closed-loop maximum), each timed from its *scheduled* send time, so a stall is charged to every request it delayed (no coordinated omission: wrk2's method, on raw keep-alive connections in bench/lib/load.js; a request due while every connection is busy waits in the generator, and that wait counts). "behind" marks a run that answered under 95% of its target rate: the tier could not keep up, or the load generator did not (its CPU is beside each row; on a machine it shares with the server, that CPU is the server's loss). ${settings.curves.duration} s per rate after ${settings.curves.warmup} s at that rate; p99.9 needs at least 1000 answers (n) to mean much.`,
    '',
  );
  const cells = [];
  for (const r of rows) {
    for (const f of r.fixedRate) {
      const behind = f.requestsPerSecond < 0.95 * f.targetRate;
      cells.push([
        name(r),
        `${f.fraction * 100}% of ${f.of === 'own' ? 'own' : `\`${f.of}\``}`,
        fmt(f.targetRate, 0),
        fmt(f.requestsPerSecond, 0),
        fmt(f.latencyMs.p50, 2),
        fmt(f.latencyMs.p99, 2),
        fmt(f.latencyMs.p999, 2),
        String(f.responses),
        fmt(f.serverCpuUsPerRequest, 1),
        fmt(f.loadGeneratorCpuCores, 2),
        `${flag(f)}${behind ? ', **behind**' : ''}`,
      ]);
    }
  }
  out.push(table(['tier', 'rate', 'target/s', 'answered/s', 'p50 ms', 'p99 ms', 'p99.9 ms', 'n', 'server CPU us/req', 'load gen cores', 'status'], cells), '');
}

// The curves: result key, the point's x field, and its column header.
const LENGTH = { key: 'lengthCurve', x: 'length', header: (x) => `${x} B` };
const CONNECTIONS = { key: 'connectionsCurve', x: 'connections', header: (x) => `c=${x}` };

/** A tier x points table of one figure of one curve. */
function curveTable(rows, curve, xs, get, digits) {
  const point = (r, x) => r[curve.key].find((p) => p[curve.x] === x);
  return table(['tier', ...xs.map(curve.header)], rows.map((r) => [name(r), ...xs.map((x) => fmt(get(point(r, x)), digits))]));
}

function curves(results, settings, out, files) {
  const rows = results.filter((r) => r.lengthCurve?.length);
  if (!rows.length) return;
  const lengths = settings.curves.lengths;
  const conns = settings.curves.connections;
  const cpu = (p) => p?.serverCpuUsPerRequest;
  const p99 = (p) => p?.latencyMs.p99;
  out.push('## Cost against text length', '', `Closed loop at ${settings.connections} connections, ${settings.curves.duration} s per point, eight URL-like texts of exactly that many bytes. Server CPU us per request:`, '');
  out.push(curveTable(rows, LENGTH, lengths, cpu, 1), '');
  out.push('p99 ms:', '', curveTable(rows, LENGTH, lengths, p99, 2), '');
  out.push('![CPU per request against text length](length-cpu.svg)', '');
  files['length-cpu.svg'] = lineChart({
    title: 'Server CPU per request against text length',
    xLabel: 'text bytes',
    yLabel: 'server CPU us per request (log)',
    xs: lengths,
    series: rows.map((r) => ({ name: name(r), ys: lengths.map((l) => cpu(r.lengthCurve.find((p) => p.length === l))) })),
    logY: true,
  });
  files['length-p99.svg'] = lineChart({
    title: `p99 latency against text length (${settings.connections} connections)`,
    xLabel: 'text bytes',
    yLabel: 'p99 ms (log)',
    xs: lengths,
    series: rows.map((r) => ({ name: name(r), ys: lengths.map((l) => p99(r.lengthCurve.find((p) => p.length === l))) })),
    logY: true,
  });

  out.push('## Against connections', '', `Closed loop, the main run's texts, ${settings.curves.duration} s per point (the c=1 and c=${settings.connections} points are the tier's first main run). req/s (2xx only):`, '');
  const rps = (p) => p?.requestsPerSecond;
  out.push(curveTable(rows, CONNECTIONS, conns, rps, 0), '');
  out.push('p99 ms:', '', curveTable(rows, CONNECTIONS, conns, p99, 2), '');
  const refused = rows.flatMap((r) => r.connectionsCurve.filter((p) => p.non2xx).map((p) => `\`${r.tier}\` at c=${p.connections}: ${fmt((p.non2xx / p.responses) * 100, 1)}% answered 503 \`server busy\``));
  if (refused.length) out.push(`Refused past the queue bound (\`--max-queue\`, 512 per process): ${refused.join('; ')}.`, '');
  out.push('![req/s against connections](connections-rps.svg)', '');
  files['connections-rps.svg'] = lineChart({
    title: 'Requests per second against connections',
    xLabel: 'connections (log)',
    yLabel: 'req/s (log)',
    xs: conns,
    series: rows.map((r) => ({ name: name(r), ys: conns.map((c) => rps(r.connectionsCurve.find((p) => p.connections === c))) })),
    logX: true,
    logY: true,
  });
  files['connections-p99.svg'] = lineChart({
    title: 'p99 latency against connections',
    xLabel: 'connections (log)',
    yLabel: 'p99 ms (log)',
    xs: conns,
    series: rows.map((r) => ({ name: name(r), ys: conns.map((c) => p99(r.connectionsCurve.find((p) => p.connections === c))) })),
    logX: true,
    logY: true,
  });

  const workers = [...new Set(results.map((r) => r.workers))];
  if (workers.length > 1) {
    const tiers = [...new Set(results.map((r) => r.tier))];
    const at = (t, w) => results.find((r) => r.tier === t && r.workers === w);
    out.push('## Against workers', '', 'node-server worker processes (`--workers`); `axum`, `axum-nginx` and `napi-node-http` ignore it. req/s:', '');
    out.push(table(['tier', ...workers.map((w) => `workers=${w}`)], tiers.map((t) => [t, ...workers.map((w) => fmt(at(t, w)?.requestsPerSecond, 0))])), '');
    files['workers-rps.svg'] = lineChart({
      title: 'Requests per second against node-server workers',
      xLabel: 'workers',
      yLabel: 'req/s (log)',
      xs: workers,
      series: tiers.map((t) => ({ name: t, ys: workers.map((w) => at(t, w)?.requestsPerSecond) })),
      logY: true,
    });
  }
}

function crossCheck(results, out) {
  const rows = results.filter((r) => r.crossCheck);
  if (!rows.length) return;
  out.push('## autocannon against wrk', '', 'The same server, texts and connections, right after the main run: wrk (C, one thread) is the cheaper load generator, so where autocannon is the limit, wrk shows it.', '');
  const cells = rows.map((r) => {
    const { wrk, autocannon } = r.crossCheck;
    const ratio = autocannon / wrk.requestsPerSecond;
    // Same server, same texts: a gap is the load generators'. autocannon costs
    // more CPU per request than wrk; on a machine it shares with the server
    // that CPU is the server's loss, and past ~0.9 cores it is its own limit.
    let verdict = 'agree within 10%';
    if (r.loadGeneratorCpuCores >= CLIENT_BOUND_CORES) verdict = '**load generator is the limit** (autocannon CPU-bound)';
    else if (ratio < 0.9 && r.loadGeneratorCpuCores >= SHARED_BOUND_CORES) verdict = `**load generator is the limit**: autocannon ${fmt((1 - ratio) * 100, 0)}% below wrk, using ${fmt(r.loadGeneratorCpuCores, 2)} cores beside the server`;
    else if (Math.abs(ratio - 1) > 0.1) verdict = `differ by ${fmt(Math.abs(ratio - 1) * 100, 0)}%: not the generator (${fmt(r.loadGeneratorCpuCores, 2)} cores), the machine between two runs`;
    return [name(r), fmt(autocannon, 0), fmt(wrk.requestsPerSecond, 0), fmt(ratio, 2), fmt(r.loadGeneratorCpuCores, 2), fmt(wrk.cpuCores, 2), verdict];
  });
  out.push(table(['tier', 'autocannon req/s', 'wrk req/s', 'ratio', 'autocannon cores', 'wrk cores', 'verdict'], cells), '');
}

function runToRun(results, out) {
  const rows = results.filter((r) => r.repeats > 1);
  if (!rows.length) return;
  const rps = (r) => r.requestsPerSecond;
  const cpu = (r) => r.serverCpuUsPerRequest;
  const runs = (r, get, digits) => r.runs.map((x) => fmt(get(x), digits)).join(', ');
  out.push('## Run to run', '', `Every main run of each configuration, and their spread ((max - min) / median). Targets: req/s within 10%, CPU per request within 5%. \`node bench/compare.js OLD.json NEW.json\` uses these spreads to flag what moved between two reports.`, '');
  const cells = rows.map((r) => {
    const [sr, sc] = [spread(r, rps), spread(r, cpu)];
    return [name(r), String(r.workers), runs(r, rps, 0), `${fmt(sr * 100, 1)}%${sr > 0.1 ? ' **over**' : ''}`, runs(r, cpu, 1), `${fmt(sc * 100, 1)}%${sc > 0.05 ? ' **over**' : ''}`];
  });
  out.push(table(['tier', 'workers', 'req/s per run', 'req/s spread', 'CPU us/req per run', 'CPU spread'], cells), '');
}

function howMeasured({ results, settings, machine }, out) {
  out.push('## How it was measured', '');
  out.push(`- Command: \`${settings.command}\``);
  out.push(`- Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGB} GB; ${machine.os}`);
  out.push(`- Tools: node ${machine.node}, autocannon ${machine.autocannon}, ${machine.wrk ?? 'wrk'}, ${machine.rustc}`);
  out.push(
    `- Load: autocannon in ${settings.loadProcesses ?? 1} load process(es) of its own, ${settings.connections} connections, ${settings.warmup} s warm-up on the same connections, then ${settings.duration} s measured; ${settings.requests ? `${settings.requests.paths} requests in rotation (${settings.requests.description})` : `${settings.texts.length} texts in rotation`}; one-connection latency: ${settings.oneConnectionSeconds} s at c=1 after each run. Closed loop: each connection waits for its answer, so its p99 is roughly connections / req/s; the fixed-rate table is the latency a user sees at a given load.`,
  );
  out.push(`- Pinning: ${settings.pin ? `load processes, sampler and wrk on CPU ${settings.pin.client} (every thread), servers on CPUs ${settings.pin.server}` : 'none: load generator and server share the CPUs'}.`);
  const clientMax = Math.max(...results.map((r) => r.loadGeneratorCpuCores));
  out.push(`- The load generator used up to ${fmt(clientMax, 2)} CPU cores ("load gen cores"); the memory sampler, a process of its own, up to ${fmt(Math.max(...results.map((r) => r.samplerCpuCores ?? 0)), 3)}.`);
  out.push('- Body bytes: the response body alone (the PNG, for the QR tiers), mean over the requests; wire bytes: what autocannon read per response, headers included.');
  out.push("- Memory: peak PSS (shared pages split between processes, /proc/PID/smaps_rollup) and RSS, summed over the server's process tree, sampled every 200 ms by the sampler process.");
  out.push('- Server CPU per request: user + system time of the whole tree (reaped children included) over the measured window, divided by 2xx responses.');
  const noLoop = results.filter((r) => !r.eventLoopDelayMs).map((r) => `\`${r.tier}\``);
  if (noLoop.length < results.length) out.push(
    `- Event-loop delay: \`monitorEventLoopDelay\` at 1 ms resolution inside node-server, the resolution subtracted (an idle loop reads 0); every worker reset at the start of the window and read at its end (matched by pid), the worst worker shown${noLoop.length ? `; n/a where no node-server serves (${[...new Set(noLoop)].join(', ')})` : ''}.`,
  );
  const references = Object.entries(settings.references ?? {
    'axum-nginx': 'deploy/nginx.conf in front of one qr_server; memory and CPU are nginx + qr_server',
    'napi-node-http': 'the addon behind bare node:http, bench/reference/napi-node-http.js',
  }).filter(([tier]) => results.some((r) => r.tier === tier));
  for (const [tier, what] of references) out.push(`- \`${tier}\` (reference): ${what}.`);
  if (settings.config) out.push(`- Tiers and requests: ${settings.config}.`);
  if (settings.repeat > 1) out.push(`- Each main configuration ran ${settings.repeat} times; figures are from the run with the median req/s${settings.repeat % 2 === 0 ? ' (the faster of the middle two)' : ''}, "req/s range" is min-max; every run is in results.json.`);
}

/** Every file of the report, by name. */
function render(report) {
  const { results, settings } = report;
  const out = [`# ${settings.title ?? 'QR-code tiers'}: benchmark report`, ''];
  const files = {};
  mainTables(results, settings, out);
  out.push('![req/s by tier](chart.svg)', '');
  files['chart.svg'] = barChart(results);
  frameworkCost(results, out);
  if (settings.curves) {
    fixedRate(results, settings, out);
    curves(results, settings, out, files);
    crossCheck(results, out);
  }
  costPerMillion(results, out);
  runToRun(results, out);
  howMeasured(report, out);
  return { 'report.md': `${out.join('\n')}\n`, ...files };
}

module.exports = { render, fmt };
