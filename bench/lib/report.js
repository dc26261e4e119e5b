'use strict';

// results.json -> report.md and its SVG charts.
const { lineChart, barChart } = require('./charts');

const fmt = (x, digits = 1) => (x === null || x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(digits));

// Past this share of a core the load generator shares the machine enough
// that req/s is a lower bound of what the server does on its own.
const GENERATOR_BOUND_CORES = 0.5;
// Past this share of all cores busy (server, generator and sampler), the
// machine itself is the limit: with more cores the server would do more.
const MACHINE_BOUND_SHARE = 0.9;

/** What limited a row's req/s besides the server: 'load generator', 'machine' or null. */
function limitOf(r, cores) {
  if (r.loadGeneratorCpuCores >= GENERATOR_BOUND_CORES) return 'load generator';
  if (cores && r.serverCpuCores + r.loadGeneratorCpuCores + (r.samplerCpuCores ?? 0) >= MACHINE_BOUND_SHARE * cores) return 'machine';
  return null;
}

/** The fixed-rate point at `fraction` of `of` ('own' or the baseline), or undefined. */
const rateAt = (r, of, fraction) => r.fixedRate?.find((f) => f.of === of && f.fraction === fraction);

/** CPU per request at half the tier's own maximum (the baseline's, for the baseline). */
const halfRateCpu = (r, baseline) => (rateAt(r, 'own', 0.5) ?? rateAt(r, baseline, 0.5))?.serverCpuUsPerRequest;

/** Column definitions: [header, value(row), digits, better ('high' | 'low')]. */
function absoluteColumns(baseline) {
  return [
    ['req/s', (r) => r.requestsPerSecond, 0, 'high'],
    ['p50 ms', (r) => r.latencyMs.p50, 2, 'low'],
    ['closed-loop p99 ms', (r) => r.latencyMs.p99, 2, 'low'],
    ['c=1 mean ms', (r) => r.oneConnectionLatencyMs?.mean, 3, 'low'],
    ['c=1 p99 ms', (r) => r.oneConnectionLatencyMs?.p99, 3, 'low'],
    ['body B', (r) => r.meanBodyBytes, 0, 'low'],
    ['wire B', (r) => r.meanWireBytes, 0, 'low'],
    ['peak PSS MB', (r) => r.peakPssMB, 1, 'low'],
    ['peak RSS MB', (r) => r.peakRssMB, 1, 'low'],
    ['CPU us/req at saturation', (r) => r.serverCpuUsPerRequest, 1, 'low'],
    ['CPU us/req at 50% rate', (r) => halfRateCpu(r, baseline), 1, 'low'],
    ['loop p99 ms', (r) => r.eventLoopDelayMs?.p99 ?? null, 2, 'low'],
    ['loop max ms', (r) => r.eventLoopDelayMs?.max ?? null, 1, 'low'],
    ['load gen cores', (r) => r.loadGeneratorCpuCores, 2, null],
  ];
}

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

// Benchmark-only rows: the configuration's `reference` tiers.
const isReference = (r) => Boolean(r.reference);
const name = (r) => (isReference(r) ? `${r.tier} (ref.)` : r.tier);
const baselineOf = (settings) => ('baseline' in settings ? settings.baseline : 'js');
const anchorOf = (settings) => settings.anchor ?? baselineOf(settings);

/** "1.23x" with the rounds' range, "(1.20-1.25)". */
const factor = (x, digits = 2) => (Number.isFinite(x) ? `${fmt(x, digits)}x` : 'n/a');
const ranged = (st, invert = false, digits = 2) => {
  if (!st) return 'n/a';
  const [m, lo, hi] = invert ? [1 / st.median, 1 / st.max, 1 / st.min] : [st.median, st.min, st.max];
  return `${factor(m, digits)} (${fmt(lo, digits)}-${fmt(hi, digits)})`;
};

/** The common fixed rate of the relative table: the highest fraction of the baseline's maximum. */
function commonRate(settings) {
  const fractions = settings.curves?.rateFractions ?? [];
  return fractions.length ? Math.max(...fractions) : null;
}

function mainTables(results, settings, machine, out) {
  const groups = [...new Set(results.map((r) => r.workers))];
  const baseline = baselineOf(settings);
  const columns = absoluteColumns(baseline);
  out.push('## Main run: closed loop, interleaved rounds', '');
  out.push(
    `Each figure is the median over the tier's visits (${settings.rounds ?? 1} rounds; the anchor \`${anchorOf(settings)}\` twice a round): ${settings.connections} connections, ${settings.warmup} s warm-up on fresh connections, then ${settings.duration} s measured. CPU per request "at saturation" is this closed-loop run's, where the tier is as busy as it gets; "at 50% rate" is the open-loop run at half the tier's own maximum (the baseline's, for the baseline). "≥": the load generator or the machine, not the server, was the limit (column "limited by"), so req/s is a lower bound.`,
    '',
  );
  for (const workers of groups) {
    const rows = results.filter((r) => r.workers === workers);
    const cells = rows.map((r) => {
      const limit = limitOf(r, machine?.cores);
      const values = columns.map(([, get, digits]) => fmt(get(r), digits));
      if (limit) values[0] = `≥ ${values[0]}`;
      return [name(r), String(workers), ...values, limit ?? '', flag(r)];
    });
    const bests = [null, null, ...columns.map(([, get, , better]) => bestIndices(rows.map(get), better))];
    out.push(table(['tier', 'workers', ...columns.map(([h]) => h), 'limited by', 'status'], cells, bests), '');
  }
}

function relativeTables(results, settings, machine, out) {
  const baseline = baselineOf(settings);
  const anchor = anchorOf(settings);
  const groups = [...new Set(results.map((r) => r.workers))];
  const common = commonRate(settings);
  if (!results.some((r) => r.tier === anchor)) return;
  out.push(`## Relative to \`${anchor}\`, within each round`, '');
  out.push(
    `Higher is better in every column: the factor by which the tier beats \`${anchor}\`. req/s, CPU per request and c=1 latency are ratios taken within each round (the tier against \`${anchor}\`'s visits of the same round), so drift between rounds cancels; each shows the median and, in brackets, the lowest and highest round. ${common ? `p99 is at one common fixed rate, ${common * 100}% of \`${baseline}\`'s maximum (open loop, every tier under the same load), not the closed-loop p99, which only restates connections / req/s.` : ''} Body bytes, wire bytes and peak PSS are the tiers' medians divided. "≥": req/s was limited by the load generator or the machine.`,
    '',
  );
  for (const workers of groups) {
    const rows = results.filter((r) => r.workers === workers);
    const ref = rows.find((r) => r.tier === anchor);
    if (!ref) continue;
    const p99AtCommon = (r) => rateAt(r, baseline, common)?.latencyMs.p99;
    const cells = rows.map((r) => {
      const limit = limitOf(r, machine?.cores);
      return [
        name(r),
        String(workers),
        `${limit ? '≥ ' : ''}${ranged(r.ratios?.requestsPerSecond)}`,
        ranged(r.ratios?.serverCpuUsPerRequest, true),
        ranged(r.ratios?.oneConnectionMs, true),
        ...(common && workers === groups[0] ? [factor(p99AtCommon(ref) / p99AtCommon(r))] : []),
        factor(ref.meanBodyBytes / r.meanBodyBytes),
        factor(ref.meanWireBytes / r.meanWireBytes),
        factor(ref.peakPssMB / r.peakPssMB),
      ];
    });
    const header = ['tier', 'workers', 'req/s', 'CPU per request', 'c=1 latency', ...(common && workers === groups[0] ? [`p99 at ${fmt(rateAt(ref, baseline, common)?.targetRate, 0)} req/s`] : []), 'body bytes', 'wire bytes', 'peak PSS'];
    out.push(table(header, cells), '');
  }
}

/** Per-round ratio of two subjects' figure (the anchor cancels), as stats. */
function pairRatio(a, b, figure) {
  const ra = a?.ratios?.[figure]?.perRound;
  const rb = b?.ratios?.[figure]?.perRound;
  if (!ra || !rb) return null;
  const perRound = ra.map((x, i) => x / rb[i]).filter(Number.isFinite);
  if (!perRound.length) return null;
  const s = [...perRound].sort((x, y) => x - y);
  const median = s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return { median, min: s[0], max: s.at(-1), perRound };
}

/** What the framework costs: the same call behind the framework and behind a bare server (settings.frameworkCost). */
function frameworkCost(results, settings, out) {
  const pair = settings.frameworkCost;
  if (!pair) return;
  const w1 = results.filter((r) => r.workers === results[0].workers);
  const bare = w1.find((r) => r.tier === pair.bare);
  const framed = w1.find((r) => r.tier === pair.framework);
  if (!bare || !framed) return;
  const cpu = pairRatio(framed, bare, 'serverCpuUsPerRequest');
  const rps = pairRatio(framed, bare, 'requestsPerSecond');
  out.push('## What the framework costs', '');
  out.push(
    `${pair.what} Both in the same rounds; the ratios are per round, median and range:`,
    '',
    table(
      ['server', 'req/s', 'CPU us/req at saturation', 'CPU us/req at 50% rate'],
      [bare, framed].map((r) => [`\`${r.tier}\``, fmt(r.requestsPerSecond, 0), fmt(r.serverCpuUsPerRequest, 1), fmt(halfRateCpu(r, baselineOf(settings)), 1)]),
    ),
    '',
    `\`${framed.tier}\` spends ${ranged(cpu)} the CPU per request of \`${bare.tier}\` and serves ${ranged(rps)} its req/s: the framework and its guards are ${fmt((1 - 1 / cpu.median) * 100, 0)}% of \`${framed.tier}\`'s CPU per request.`,
    '',
  );
}

/** Each configured pair: one tier over another that differs from it in one thing (settings.pairs). */
function pairsSection(results, settings, out) {
  if (!settings.pairs?.length) return;
  const w1 = results.filter((r) => r.workers === results[0].workers);
  const cells = [];
  for (const pair of settings.pairs) {
    const a = w1.find((r) => r.tier === pair.tier);
    const b = w1.find((r) => r.tier === pair.against);
    const cpu = pairRatio(a, b, 'serverCpuUsPerRequest');
    if (!cpu) continue;
    const rps = pairRatio(a, b, 'requestsPerSecond');
    cells.push([`\`${pair.tier}\` over \`${pair.against}\``, pair.what, fmt(a.serverCpuUsPerRequest, 1), fmt(b.serverCpuUsPerRequest, 1), ranged(cpu, false, 3), ranged(rps, false, 3)]);
  }
  if (!cells.length) return;
  out.push('## Pairs', '');
  out.push(
    'Two tiers that differ in one thing, in the same rounds: the first one\'s CPU per request and req/s over the second\'s, per round, median and, in brackets, the lowest and highest round (a CPU ratio of 1.03 is 3% more CPU per request).',
    '',
    table(['pair', 'the difference', 'CPU us/req', 'CPU us/req (second)', 'CPU ratio', 'req/s ratio'], cells),
    '',
  );
}

/** The crossLine tiers on every supported Node line, from the same rounds. */
function crossLineSection(report, out) {
  const { results, crossLine = [], settings, machine } = report;
  const tiers = [...new Set(crossLine.map((r) => r.tier))];
  if (!tiers.length) return;
  const pinned = { line: machine.node.replace(/^v/, ''), v8: machine.v8, rows: results.filter((r) => r.workers === results[0].workers && tiers.includes(r.tier)) };
  const lines = [pinned, ...[...new Set(crossLine.map((r) => r.line))].map((line) => ({ line, v8: crossLine.find((r) => r.line === line).v8, rows: crossLine.filter((r) => r.line === line) }))];
  const [framework, bare] = settings.frameworkCost ? [settings.frameworkCost.framework, settings.frameworkCost.bare] : tiers;
  out.push('## Across Node lines', '');
  out.push(
    `The same tiers on each supported Node line, one worker, in the same interleaved rounds as the tables above (so the lines are compared within each round, not across runs). req/s and CPU per request relative to \`${framework}\` on Node ${pinned.line}, the line the project is pinned to (higher is better), and the CPU of \`${framework}\` over \`${bare}\` on the same line: what the framework costs there.`,
    '',
  );
  const ref = pinned.rows.find((r) => r.tier === framework);
  const cells = [];
  for (const { line, v8, rows } of lines) {
    for (const r of rows) {
      const other = rows.find((x) => x.tier === (r.tier === framework ? bare : framework));
      const frameworkOverBare = r.tier === framework && other ? ranged(pairRatio(r, other, 'serverCpuUsPerRequest')) : '';
      cells.push([`${line}`, v8, `\`${r.tier}\``, fmt(r.requestsPerSecond, 0), fmt(r.serverCpuUsPerRequest, 1), ranged(pairRatio(r, ref, 'requestsPerSecond')), ranged(pairRatio(r, ref, 'serverCpuUsPerRequest'), true), frameworkOverBare]);
    }
  }
  out.push(table(['Node', 'V8', 'tier', 'req/s', 'CPU us/req', `req/s vs \`${framework}\` on ${pinned.line}`, `CPU vs \`${framework}\` on ${pinned.line}`, `CPU \`${framework}\` / \`${bare}\``], cells), '');
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

  out.push('## Against connections', '', `Closed loop, the main run's texts, ${settings.curves.duration} s per point (the c=1 and c=${settings.connections} points are the rounds' medians). req/s (2xx only):`, '');
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
    out.push('## Against workers', '', `${settings.notes?.workers ?? 'Server worker processes (`--workers`)'}. req/s:`, '');
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
  out.push('## autocannon against wrk', '', 'The same server, texts and connections, after the rounds (autocannon: the rounds\' median): wrk (C, one thread) is the cheaper load generator, so where autocannon is the limit, wrk shows it.', '');
  const cells = rows.map((r) => {
    const { wrk, autocannon } = r.crossCheck;
    const ratio = autocannon / wrk.requestsPerSecond;
    // Same server, same texts: a gap is the load generators'. autocannon costs
    // more CPU per request than wrk; on a machine it shares with the server
    // that CPU is the server's loss, and past ~0.9 cores it is its own limit.
    let verdict = 'agree within 10%';
    if (r.loadGeneratorCpuCores >= 0.9) verdict = '**load generator is the limit** (autocannon CPU-bound)';
    else if (ratio < 0.9 && r.loadGeneratorCpuCores >= GENERATOR_BOUND_CORES) verdict = `**load generator is the limit**: autocannon ${fmt((1 - ratio) * 100, 0)}% below wrk, using ${fmt(r.loadGeneratorCpuCores, 2)} cores beside the server`;
    else if (Math.abs(ratio - 1) > 0.1) verdict = `differ by ${fmt(Math.abs(ratio - 1) * 100, 0)}%: not the generator (${fmt(r.loadGeneratorCpuCores, 2)} cores), the machine between two runs`;
    return [name(r), fmt(autocannon, 0), fmt(wrk.requestsPerSecond, 0), fmt(ratio, 2), fmt(r.loadGeneratorCpuCores, 2), fmt(wrk.cpuCores, 2), verdict];
  });
  out.push(table(['tier', 'autocannon req/s', 'wrk req/s', 'ratio', 'autocannon cores', 'wrk cores', 'verdict'], cells), '');
}

/** Each round's order and how far the machine ran from its median: drift made visible. */
function roundsSection(report, out) {
  const groups = report.rounds ?? [];
  if (!groups.length) return;
  out.push('## Rounds', '');
  out.push(
    "Each round's machine index is the anchor's figure in that round over its median across rounds: 1.00 is a typical round, 0.80 a round in which the same server ran 20% slower. Ratios are taken within a round, so such drift cancels out of them, though not out of the absolute figures. Steal (the hypervisor running other guests on our vCPUs) and softirq (network processing) are shares of all CPU time over the round's measured windows, from /proc/stat.",
    '',
  );
  const cells = [];
  for (const { workers, anchor, rounds } of groups) {
    for (const r of rounds) {
      cells.push([String(workers), String(r.round + 1), `\`${anchor}\``, fmt(r.anchorRequestsPerSecond, 2), fmt(r.anchorCpuUsPerRequest, 2), `${fmt(r.steal * 100, 1)}%`, `${fmt(r.softirq * 100, 1)}%`, r.order.map((k) => `\`${k}\``).join(' ')]);
    }
  }
  out.push(table(['workers', 'round', 'anchor', 'index: req/s', 'index: CPU us/req', 'steal', 'softirq', 'order'], cells), '');
}

function howMeasured({ results, settings, machine }, out) {
  out.push('## How it was measured', '');
  out.push(`- Command: \`${settings.command}\``);
  out.push(`- Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGB} GB; ${machine.os}`);
  out.push(`- Servers' Node: ${machine.node}${machine.v8 ? ` (V8 ${machine.v8})` : ''}${settings.nodeArgs?.length ? `, run with \`${settings.nodeArgs.join(' ')}\`` : ''}; kernel ${machine.kernel ?? machine.os}${settings.lines?.length > 1 ? `; the cross-line section also ran ${settings.lines.slice(1).join(', ')}` : ''}.`);
  out.push(`- Tools: autocannon ${machine.autocannon} (harness on node ${machine.harnessNode ?? machine.node}), ${machine.wrk ?? 'wrk'}, ${machine.rustc}`);
  if (settings.commit) out.push(`- Source: commit ${settings.commit}, ${settings.date}.`);
  out.push(
    `- Load: autocannon in ${settings.loadProcesses ?? 1} load process(es) of its own, ${settings.connections} connections, ${settings.warmup} s warm-up on the same connections, then ${settings.duration} s measured; ${settings.requests ? `${settings.requests.paths} requests in rotation (${settings.requests.description})` : `${settings.texts.length} texts in rotation`}; one-connection latency: ${settings.oneConnectionSeconds} s at c=1 after each visit${settings.oneConnection?.rounds < settings.rounds ? ` of ${settings.oneConnection.rounds} of the ${settings.rounds} rounds (evenly spread)` : ''} at the first worker count. Closed loop: each connection waits for its answer, so its p99 is roughly connections / req/s; the fixed-rate table is the latency a user sees at a given load.`,
  );
  if (settings.rounds) out.push(
    `- Interleaving: every server of a worker count started up front, warmed (${settings.prewarm ?? settings.warmup} s at ${settings.connections} connections), and stopped with SIGSTOP (its whole process tree) but while measured; ${settings.rounds} rounds, each visiting every tier in an order rotated by one per round, the anchor \`${anchorOf(settings)}\` first and halfway. The curves, fixed rates and wrk run after the rounds, one tier at a time, the others stopped; their rates come from the rounds' medians.`,
  );
  out.push(`- Pinning: ${settings.pin ? `load processes, sampler and wrk on CPU ${settings.pin.client} (every thread), servers on CPUs ${settings.pin.server}` : 'none: load generator and server share the CPUs'}.`);
  const clientMax = Math.max(...results.map((r) => r.loadGeneratorCpuCores));
  out.push(`- The load generator used up to ${fmt(clientMax, 2)} CPU cores ("load gen cores"); the memory sampler, a process of its own, up to ${fmt(Math.max(...results.map((r) => r.samplerCpuCores ?? 0)), 3)}.`);
  out.push(`- Body bytes: the response body alone${settings.notes?.body ? ` (${settings.notes.body})` : ''}, mean over the requests; wire bytes: what autocannon read per response, headers included.`);
  out.push("- Memory: peak PSS (shared pages split between processes, /proc/PID/smaps_rollup) and RSS, summed over the server's process tree, sampled every 200 ms by the sampler process.");
  out.push('- Server CPU per request: user + system time of the whole tree (reaped children included) over the measured window, divided by 2xx responses.');
  const noLoop = results.filter((r) => !r.eventLoopDelayMs).map((r) => `\`${r.tier}\``);
  if (noLoop.length < results.length) out.push(
    `- Event-loop delay: \`monitorEventLoopDelay\` at 1 ms resolution inside node-server, the resolution subtracted (an idle loop reads 0); every worker reset at the start of the window and read at its end (matched by pid), the worst worker shown${noLoop.length ? `; n/a where no node-server serves (${[...new Set(noLoop)].join(', ')})` : ''}.`,
  );
  const references = Object.entries(settings.references ?? {}).filter(([tier]) => results.some((r) => r.tier === tier));
  for (const [tier, what] of references) out.push(`- \`${tier}\` (reference): ${what}.`);
  if (settings.config) out.push(`- Tiers and requests: ${settings.config}.`);
  const compare = settings.command?.startsWith('tier-bench') ? 'tier-bench-compare' : 'node bench/compare.js';
  out.push(`- Absolute figures move with the machine from run to run (see "Rounds"); the ratios are what a second run reproduces: \`${compare} OLD.json NEW.json\` compares them.`);
}

/** Every file of the report, by name. */
function render(report) {
  const { results, settings, machine } = report;
  const out = [`# ${settings.title}: benchmark report`, ''];
  const files = {};
  mainTables(results, settings, machine, out);
  relativeTables(results, settings, machine, out);
  out.push('![req/s by tier](chart.svg)', '');
  files['chart.svg'] = barChart(results, { baseline: baselineOf(settings), lowerBound: (r) => Boolean(limitOf(r, machine?.cores)) });
  frameworkCost(results, settings, out);
  pairsSection(results, settings, out);
  crossLineSection(report, out);
  if (settings.curves) {
    fixedRate(results, settings, out);
    curves(results, settings, out, files);
    crossCheck(results, out);
  }
  costPerMillion(results, out);
  roundsSection(report, out);
  howMeasured(report, out);
  return { 'report.md': `${out.join('\n')}\n`, ...files };
}

module.exports = { render, fmt, table, ranged, factor, limitOf, pairRatio, rateAt, halfRateCpu, commonRate, baselineOf, anchorOf, name };
