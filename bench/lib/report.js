'use strict';

// results.json -> report.md and its SVG charts. Nothing here knows what the
// service does: its words come from the configuration (settings.notes).
const { lineChart, ratioChart } = require('./charts');
const { limitOf, isLowerBound } = require('./limit');
const { invert, ratioInterval, twoModes, mean, median, sd, t975, roundsToReach } = require('./stats');

const fmt = (x, digits = 1) => (x === null || x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(digits));

/** The fixed-rate point at `fraction` of `of` ('own' or the baseline), or undefined. */
const rateAt = (r, of, fraction) => r.fixedRate?.find((f) => f.of === of && f.fraction === fraction);

/** CPU per request at half the tier's own maximum (the baseline's, for the baseline). */
const halfRateCpu = (r, baseline) => (rateAt(r, 'own', 0.5) ?? rateAt(r, baseline, 0.5))?.serverCpuUsPerRequest;

// Benchmark-only rows: the configuration's `reference` tiers.
const isReference = (r) => Boolean(r.reference);
const name = (r) => (isReference(r) ? `${r.tier} (ref.)` : r.tier);
const baselineOf = (settings) => ('baseline' in settings ? settings.baseline : 'js');
const anchorOf = (settings) => settings.anchor ?? baselineOf(settings);
// Reports made before a tier ran on more than one server say nothing of it.
const servers = ({ serversPerTier: n }) =>
  n > 1 ? `, ${n} per tier (a process can settle slower for its whole life; each round visits a tier's next)` : '';

const factor = (x, digits = 2) => (Number.isFinite(x) ? `${fmt(x, digits)}x` : 'n/a');

/**
 * A ratio with its 95% interval, "1.23x (1.20-1.25)", higher is better
 * (`invert` for a figure where lower is better, such as CPU per request).
 * Two modes are shown as both, never as one figure between them.
 */
function interval(st, { invert: inv = false, digits = 2 } = {}) {
  if (!st || !Number.isFinite(st.estimate)) return 'n/a';
  const iv = inv ? invert(st) : st;
  if (st.modes) {
    const [a, b] = [st.modes.low, st.modes.high].map((m) => ({ ...m, estimate: inv ? 1 / m.estimate : m.estimate }));
    return `two modes: ${factor(a.estimate, digits)} (${a.rounds} rounds), ${factor(b.estimate, digits)} (${b.rounds})`;
  }
  if (!Number.isFinite(iv.low)) return factor(iv.estimate, digits);
  return `${factor(iv.estimate, digits)} (${fmt(iv.low, digits)}-${fmt(iv.high, digits)})`;
}

/**
 * The req/s ratio a row stands for: autocannon's, or wrk's where autocannon
 * held the server back and wrk got more. wrk shares the machine with the
 * server too, so its figure is a lower bound as well. wrk runs only in the
 * rounds autocannon was held back: its figure stands for the tier only where
 * that was at least half of them, so a few rounds' ratio does not replace
 * all of autocannon's.
 */
function rpsRatio(r) {
  const a = r.ratios?.requestsPerSecond;
  const w = r.ratios?.wrkRequestsPerSecond;
  if (w && a && w.estimate > a.estimate && !w.modes && w.n >= 2 && 2 * w.n >= a.n)
    return { ratio: w, generator: 'wrk', bound: true };
  return { ratio: a, generator: 'autocannon', bound: isLowerBound(r) };
}

/** "≥ 1.23x (…)" where the figure is a lower bound, with the generator named if not autocannon. */
function rpsCell(r, digits = 2) {
  const { ratio, generator, bound } = rpsRatio(r);
  return `${bound ? '≥ ' : ''}${interval(ratio, { digits })}${generator === 'wrk' ? ' (wrk)' : ''}`;
}

/**
 * Column definitions: [header, value(row), digits, better ('high' | 'low')]; a row is a run's result.
 * @typedef {[string, (r: any) => number | null, number, string | null]} Column
 * @returns {Column[]}
 */
function absoluteColumns(settings) {
  const baseline = baselineOf(settings);
  return [
    ['req/s', (r) => r.requestsPerSecond, 0, 'high'],
    ['p50 ms', (r) => r.latencyMs.p50, 2, 'low'],
    ['closed-loop p99 ms', (r) => r.latencyMs.p99, 2, 'low'],
    ['c=1 mean ms', (r) => r.oneConnectionLatencyMs?.mean, 3, 'low'],
    ['c=1 p99 ms', (r) => r.oneConnectionLatencyMs?.p99, 3, 'low'],
    ['body B', (r) => r.meanBodyBytes, 0, 'low'],
    ['wire B', (r) => r.meanWireBytes, 0, 'low'],
    ['peak RSS MB', (r) => r.peakRssMB, 1, 'low'],
    ['peak USS MB', (r) => r.peakUssMB, 1, 'low'],
    ['CPU us/req', (r) => r.serverCpuUsPerRequest, 1, 'low'],
    ...(settings.curves
      ? [/** @type {Column} */ (['CPU us/req at 50% rate', (r) => halfRateCpu(r, baseline), 1, 'low'])]
      : []),
    ['loop p99 ms', (r) => r.eventLoopDelayMs?.p99 ?? null, 2, 'low'],
    ['busiest thread, cores', (r) => r.busiestThreadCores, 2, null],
    ['load gen cores', (r) => r.loadGeneratorCpuCores, 2, null],
    ['wrk req/s', (r) => r.wrk?.requestsPerSecond ?? null, 0, null],
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
  for (const [i, row] of cells.entries()) {
    lines.push(`| ${row.map((c, j) => (bests[j]?.has(i) ? `**${c}**` : c)).join(' | ')} |`);
  }
  return lines.join('\n');
}

function bestIndices(values, better) {
  const finite = values.filter((v) => Number.isFinite(v));
  if (!better || finite.length < 2) return new Set();
  const best = better === 'high' ? Math.max(...finite) : Math.min(...finite);
  return new Set(values.map((v, i) => (v === best ? i : -1)).filter((i) => i >= 0));
}

/** Whether a worker count's anchor was itself held back: ratios against it would divide one bound by another. */
const anchorBound = (rows, anchor) => {
  const ref = rows.find((r) => r.tier === anchor);
  return Boolean(ref && isLowerBound(ref));
};

/**
 * For a tier that left on the budget or the cap with an interval still wider
 * than the stop rule asks: about how many rounds its rounds' spread would
 * need to close both (null where it closed, or has two modes: no spread
 * describes those).
 */
function roundsNeeded(r, tolerance) {
  if (!/^(time budget|round cap)$/.test(r.stop?.reason ?? '')) return null;
  const cpu = r.ratios?.serverCpuUsPerRequest;
  const rps = r.ratios?.requestsPerSecond;
  if (!cpu || !rps || cpu.modes || rps.modes) return null;
  const cap = { cap: ROUNDS_CAP };
  const n = Math.max(roundsToReach(cpu.perRound, tolerance.cpu, cap), roundsToReach(rps.perRound, tolerance.rps, cap));
  return Number.isFinite(n) && n > r.stop.rounds ? n : null;
}

// roundsToReach's cap: "1000" is "1000 or more".
const ROUNDS_CAP = 1000;
const roundsText = (n) => (n >= ROUNDS_CAP ? `${ROUNDS_CAP} or more` : String(n));

/** Why a tier stopped; for one that left early, what its spread would need. */
function stopCell(r, tolerance) {
  const reason = r.stop?.reason ?? '';
  const n = tolerance ? roundsNeeded(r, tolerance) : null;
  return n ? `${reason}; roughly ${roundsText(n)} rounds in all at this spread` : reason;
}

function verdictLines(report, out) {
  const { results, settings } = report;
  const w1 = results.filter((r) => r.workers === results[0].workers);
  const converged = w1.filter((r) => r.stop?.reason.startsWith('converged')).length;
  const others = w1.filter((r) => r.tier !== anchorOf(settings));
  const minutes = fmt(settings.wallSeconds / 60, 1);
  const rounds = Math.max(...w1.map((r) => r.stop?.rounds ?? 0));
  out.push(
    (settings.full
      ? 'The full run'
      : settings.runtimes?.length
        ? 'The default run, then the cross-runtime rounds,'
        : 'The default run') +
      ` took ${minutes} minutes: ${rounds} interleaved rounds at most; ${converged} of ${others.length} tiers ` +
      `stopped with their ratios' 95% intervals within ±${fmt(settings.tolerance.cpu * 100, 0)}% (CPU per request) ` +
      `and ±${fmt(settings.tolerance.rps * 100, 0)}% (req/s).` +
      needLine(w1, settings, report.rounds?.[0]) +
      modesLine(others),
    '',
  );
}

/** " The rounds of `a` and `b` fall into two modes, ...": the tiers neither count above takes in; or nothing. */
function modesLine(rows) {
  const names = rows
    .filter((r) => r.ratios?.serverCpuUsPerRequest?.modes || r.ratios?.requestsPerSecond?.modes)
    .map((r) => `\`${r.tier}\``);
  if (!names.length) return '';
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
  const which = names.length === 1 ? 'that tier' : 'those tiers';
  return ` The rounds of ${list} fall into two modes, so no single figure or interval describes ${which}.`;
}

/**
 * " The N that left early would need roughly A to B rounds in all at their spread (...).", then, from a run that
 * timed its rounds, how long a run that gave each tier its rounds would take and the options that ask for it; or
 * nothing.
 */
function needLine(rows, settings, group) {
  const { tolerance } = settings;
  const needs = rows.map((r) => roundsNeeded(r, tolerance)).filter((n) => n !== null);
  if (!needs.length) return '';
  const [low, high] = [Math.min(...needs), Math.max(...needs)];
  const range = low === high ? roundsText(low) : `${roundsText(low)} to ${roundsText(high)}`;
  const who = needs.length === 1 ? 'The tier that left' : `The ${needs.length} that left`;
  return (
    ` ${who} on the budget or the cap would need roughly ${range} rounds in all at their rounds' spread ` +
    '(a sample-size estimate from few rounds: the same interval over the same spread, which is itself uncertain; ' +
    'the stop rule, checked every round, often stops sooner).' +
    longerRun(rows, settings, group, high)
  );
}

/**
 * " At this run's pace (...), the default rounds would give every tier those rounds by about M minutes after
 * the run began: `--budget M`.": each tier visited until it converged, or for the rounds its spread needs (all
 * of them where no spread describes it: two modes), the anchor twice a round, each visit as long as this run's
 * were on average, after this run's start and warm-up of the servers, and one round more of margin (a round that
 * would end past the budget does not start). Options only for the limits that stopped this run short; nothing
 * for a run of fixed rounds.
 */
function longerRun(rows, settings, group, rounds) {
  const { visitSeconds, setupSeconds } = group ?? {};
  if (!Number.isFinite(visitSeconds) || !Number.isFinite(setupSeconds) || rounds >= ROUNDS_CAP) return '';
  if (settings.minRounds === settings.maxRounds) return '';
  const anchor = anchorOf(settings);
  const own = rows
    .filter((r) => r.tier !== anchor)
    .map((r) =>
      Math.min(
        rounds,
        r.stop?.reason.startsWith('converged') ? r.stop.rounds : (roundsNeeded(r, settings.tolerance) ?? rounds),
      ),
    );
  const visits = own.reduce((sum, n) => sum + n, 2 * rounds);
  const lastRound = 2 + own.filter((n) => n === rounds).length;
  const minutes = Math.ceil((setupSeconds + (visits + lastRound) * visitSeconds) / 60);
  const options = [
    ...(minutes > settings.budgetMinutes ? [`--budget ${minutes}`] : []),
    ...(rounds > settings.maxRounds ? [`--max-rounds ${rounds}`] : []),
  ];
  return (
    ` At this run's pace (${fmt(visitSeconds, 1)} s a visit, ${fmt(setupSeconds / 60, 1)} minutes to start and ` +
    `warm the servers), the default rounds would give every tier those rounds by about ${minutes} minutes after ` +
    `the run began${options.length ? `: \`${options.join(' ')}\`` : ''}.`
  );
}

function relativeTables(report, out, files) {
  const { results, settings, machine } = report;
  const anchor = anchorOf(settings);
  const groups = [...new Set(results.map((r) => r.workers))];
  if (!results.some((r) => r.tier === anchor)) return;
  out.push(`## Relative to \`${anchor}\`, within each round`, '');
  out.push(
    `Higher is better in every column: the factor by which the tier beats \`${anchor}\`. req/s, CPU per request ` +
      `and one-connection (c=1) latency are ratios taken within each round (the tier against \`${anchor}\`'s ` +
      "visits of the same round), so drift between rounds cancels; each is the geometric mean over the tier's " +
      'rounds with its 95% interval in brackets. "≥": the load generator or the machine, not the server, was the ' +
      `limit, so the server does at least that much; "(wrk)": the figure is wrk's, a cheaper generator run where ` +
      'autocannon was the limit. "two modes": the rounds fall into two groups with a gap between them; no single ' +
      "figure describes the tier. Peak RSS is the tiers' medians divided: each process's resident pages, summed " +
      "over the server's process tree, whatever other processes share.",
    '',
  );
  for (const workers of groups) {
    const rows = results.filter((r) => r.workers === workers);
    const ref = rows.find((r) => r.tier === anchor);
    if (!ref) continue;
    if (anchorBound(rows, anchor)) {
      out.push(
        `At ${workers} worker${workers === 1 ? '' : 's'} \`${anchor}\` itself was held back by the ` +
          `${limitOf(ref)} (the load generator runs on the same ${machine.cores} cores), so every ratio there ` +
          'would divide one lower bound by another: this machine cannot measure them. The absolute figures are in ' +
          'the main table.',
        '',
      );
      continue;
    }
    const cells = rows.map((r) => [
      name(r),
      String(workers),
      rpsCell(r),
      interval(r.ratios?.serverCpuUsPerRequest, { invert: true }),
      interval(r.ratios?.oneConnectionMs, { invert: true }),
      factor(ref.peakRssMB / r.peakRssMB),
      String(r.stop?.rounds ?? r.visits),
      stopCell(r, settings.tolerance),
    ]);
    out.push(
      table(['tier', 'workers', 'req/s', 'CPU per request', 'c=1 latency', 'peak RSS', 'rounds', 'stopped'], cells),
      '',
    );
    const chart = `ratios-w${workers}.svg`;
    files[chart] = ratioChart(rows, {
      anchor,
      title: `${settings.title}: against \`${anchor}\`, ${workers} worker${workers === 1 ? '' : 's'}`,
      lowerBound: (r) => rpsRatio(r).bound,
      rps: (r) => rpsRatio(r).ratio,
    });
    out.push(`![ratios against ${anchor} at ${workers} worker(s)](${chart})`, '');
  }
}

/** Beside each measured ratio, the range tier-bench-profile predicted for it before the port. */
function predictionSection(report, out) {
  const { prediction, results } = report;
  if (!prediction) return;
  const rows = results.filter((r) => r.workers === results[0].workers);
  const cells = [];
  for (const t of prediction.tiers) {
    const r = rows.find((x) => x.tier === t.name || t.alike?.includes(x.tier));
    if (!r?.ratios) continue;
    const rps = rpsRatio(r).ratio;
    const cpu = invert(r.ratios.serverCpuUsPerRequest);
    const where = (iv, p) =>
      iv.low > p.ceiling ? '**above the ceiling**' : iv.high < p.floor ? 'below the floor' : 'in range';
    const range = (floor, ceiling) => `${factor(floor)} - ${factor(ceiling)}`;
    cells.push([
      r.tier === t.name ? t.name : `${r.tier} (as ${t.name})`,
      rpsCell(r),
      range(t.floor.rps, t.ceiling.rps),
      where(rps, { floor: t.floor.rps, ceiling: t.ceiling.rps }),
      interval(r.ratios.serverCpuUsPerRequest, { invert: true }),
      range(t.floor.cpu, t.ceiling.cpu),
      where(cpu, { floor: t.floor.cpu, ceiling: t.ceiling.cpu }),
    ]);
  }
  if (!cells.length) return;
  out.push('## Against the prediction', '');
  out.push(
    `What \`tier-bench-profile\` predicted for each tier on ${prediction.finished.slice(0, 10)}, before this run, ` +
      `from \`${prediction.function}\` in the service as it was: from "if Rust is no faster than the JavaScript" ` +
      'to "at most" (the Rust side costing nothing), ' +
      "each with the tier's boundary cost. A measured ratio above its ceiling means " +
      'the prediction missed a cost the port removed.',
    '',
  );
  out.push(
    table(['tier', 'req/s', 'predicted req/s', '', 'CPU per request', 'predicted CPU per request', ''], cells),
    '',
  );
}

function mainTables(report, out) {
  const { results, settings } = report;
  const groups = [...new Set(results.map((r) => r.workers))];
  const columns = absoluteColumns(settings);
  out.push('## Absolute figures', '');
  out.push(
    `Each figure is the median over the tier's visits, ${settings.connections} connections, ${settings.warmup} s ` +
      `warm-up on fresh connections, then ${settings.duration} s measured; latencies are of 2xx answers (refused ` +
      'ones apart). These move with the machine from round to round (see "Rounds"); the ratios above do not. ' +
      '"limited by": what held req/s back (`server`: one of its threads ran a whole core).',
    '',
  );
  for (const workers of groups) {
    const rows = results.filter((r) => r.workers === workers);
    const cells = rows.map((r) => {
      const values = columns.map(([, get, digits]) => fmt(get(r), digits));
      if (isLowerBound(r)) values[0] = `≥ ${values[0]}`;
      return [name(r), String(workers), ...values, limitOf(r) ?? '', flag(r)];
    });
    const bests = [null, null, ...columns.map(([, get, , better]) => bestIndices(rows.map(get), better))];
    out.push(table(['tier', 'workers', ...columns.map(([h]) => h), 'limited by', 'status'], cells, bests), '');
  }
}

/** Per-round ratio of two subjects' figure (the anchor cancels), as an interval. */
function pairRatio(a, b, figure) {
  const ra = a?.ratios?.[figure]?.perRound;
  const rb = b?.ratios?.[figure]?.perRound;
  if (!ra || !rb) return null;
  const n = Math.min(ra.length, rb.length);
  const perRound = Array.from({ length: n }, (_, i) => ra[i] / rb[i]).filter(Number.isFinite);
  if (!perRound.length) return null;
  return {
    ...ratioInterval(perRound),
    median: median(perRound),
    min: Math.min(...perRound),
    max: Math.max(...perRound),
    perRound,
    modes: twoModes(perRound),
  };
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
    `${pair.what} Both in the same rounds; the ratios are per round, with their 95% interval:`,
    '',
    table(
      ['server', 'req/s', 'CPU us/req'],
      [bare, framed].map((r) => [`\`${r.tier}\``, fmt(r.requestsPerSecond, 0), fmt(r.serverCpuUsPerRequest, 1)]),
    ),
    '',
    `\`${framed.tier}\` spends ${interval(cpu)} the CPU per request of \`${bare.tier}\` and serves ` +
      `${interval(rps)} its req/s.`,
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
    cells.push([
      `\`${pair.tier}\` over \`${pair.against}\``,
      pair.what,
      fmt(a.serverCpuUsPerRequest, 1),
      fmt(b.serverCpuUsPerRequest, 1),
      interval(cpu, { digits: 3 }),
      interval(rps, { digits: 3 }),
    ]);
  }
  if (!cells.length) return;
  out.push('## Pairs', '');
  out.push(
    "Two tiers that differ in one thing, in the same rounds: the first one's CPU per request and req/s over the " +
      "second's, per round, with the 95% interval (a CPU ratio of 1.03 is 3% more CPU per request).",
    '',
    table(['pair', 'the difference', 'CPU us/req', 'CPU us/req (second)', 'CPU ratio', 'req/s ratio'], cells),
    '',
  );
}

/** The crossLine tiers on every supported Node line, from the same rounds. */
function crossLineSection(report, out) {
  const { crossLine = [], settings, machine } = report;
  const tiers = [...new Set(crossLine.map((r) => r.tier))];
  if (!tiers.length) return;
  const pinnedLine = machine.node.replace(/^v/, '');
  const lines = [...new Set(crossLine.map((r) => r.line))]
    .sort((a, b) => (a === pinnedLine ? -1 : b === pinnedLine ? 1 : 0))
    .map((line) => ({
      line,
      v8: crossLine.find((r) => r.line === line).v8,
      rows: crossLine.filter((r) => r.line === line),
    }));
  const pinned = lines.find((l) => l.line === pinnedLine) ?? lines[0];
  const [framework, bare] = settings.frameworkCost
    ? [settings.frameworkCost.framework, settings.frameworkCost.bare]
    : tiers;
  out.push('## Across Node lines', '');
  out.push(
    'The same tiers on each supported Node line, one worker, in interleaved rounds of their own (so the lines are ' +
      `compared within each round, not across runs). req/s and CPU per request relative to \`${framework}\` on ` +
      `Node ${pinned.line}, the line the project is pinned to (higher is better), and the CPU of \`${framework}\` ` +
      `over \`${bare}\` on the same line: what the framework costs there.`,
    '',
  );
  const ref = pinned.rows.find((r) => r.tier === framework);
  const cells = [];
  for (const { line, v8, rows } of lines) {
    for (const r of rows) {
      const other = rows.find((x) => x.tier === (r.tier === framework ? bare : framework));
      const frameworkOverBare =
        r.tier === framework && other ? interval(pairRatio(r, other, 'serverCpuUsPerRequest')) : '';
      cells.push([
        `${line}`,
        v8,
        `\`${r.tier}\``,
        fmt(r.requestsPerSecond, 0),
        fmt(r.serverCpuUsPerRequest, 1),
        interval(pairRatio(r, ref, 'requestsPerSecond')),
        interval(pairRatio(r, ref, 'serverCpuUsPerRequest'), { invert: true }),
        frameworkOverBare,
      ]);
    }
  }
  out.push(
    table(
      [
        'Node',
        'V8',
        'tier',
        'req/s',
        'CPU us/req',
        `req/s vs \`${framework}\` on ${pinned.line}`,
        `CPU vs \`${framework}\` on ${pinned.line}`,
        `CPU \`${framework}\` / \`${bare}\``,
      ],
      cells,
    ),
    '',
  );
}

/** The crossRuntime tiers on the pinned Node, Bun and Deno, from the same rounds. */
function crossRuntimeSection(report, out) {
  const { crossRuntime = [], settings } = report;
  if (!crossRuntime.length) return;
  const runtimes = [...new Set(crossRuntime.map((r) => r.runtime))];
  const [home] = runtimes;
  const rowsOf = (runtime) => crossRuntime.filter((r) => r.runtime === runtime);
  const tiers = [...new Set(crossRuntime.map((r) => r.tier))];
  const { framework, bare } = settings.frameworkCost ?? { framework: tiers[0], bare: tiers[1] };
  const ref = rowsOf(home).find((r) => r.tier === framework);
  out.push('## Across runtimes', '');
  out.push(
    `The same tiers on ${runtimes.join(', ')}, one worker, in interleaved rounds of their own (the runtimes are ` +
      'compared within each round, not across runs). req/s, CPU per request and one-connection (c=1) latency ' +
      `relative to \`${framework}\` on ${home} (higher is better), each with its 95% interval, and the CPU of ` +
      `\`${framework}\` over \`${bare}\` on the same runtime: what the framework costs there.`,
    '',
  );
  const cells = [];
  for (const runtime of runtimes) {
    const rows = rowsOf(runtime);
    for (const r of rows) {
      const other = rows.find((x) => x.tier === (r.tier === framework ? bare : framework));
      const cpuOverBare = r.tier === framework && other ? interval(pairRatio(r, other, 'serverCpuUsPerRequest')) : '';
      cells.push([
        runtime,
        `\`${r.tier}\``,
        fmt(r.requestsPerSecond, 0),
        fmt(r.serverCpuUsPerRequest, 1),
        fmt(r.oneConnectionLatencyMs?.mean * 1000, 0),
        interval(pairRatio(r, ref, 'requestsPerSecond')),
        interval(pairRatio(r, ref, 'serverCpuUsPerRequest'), { invert: true }),
        interval(pairRatio(r, ref, 'oneConnectionMs'), { invert: true }),
        cpuOverBare,
      ]);
    }
  }
  const vs = `vs \`${framework}\` on ${home}`;
  const header = ['runtime', 'tier', 'req/s', 'CPU us/req', 'c=1 mean us'];
  out.push(
    table([...header, `req/s ${vs}`, `CPU ${vs}`, `c=1 latency ${vs}`, `CPU \`${framework}\` / \`${bare}\``], cells),
    '',
  );
}

function costPerMillion(results, out) {
  out.push(
    '## Cost per million requests',
    '',
    'CPU-seconds the whole server tree spent per million answered requests, the requests one CPU core answers per ' +
      'second at that cost, and the memory held meanwhile.',
    '',
  );
  const cells = results.map((r) => [
    name(r),
    String(r.workers),
    fmt(r.serverCpuUsPerRequest, 0),
    fmt(1e6 / r.serverCpuUsPerRequest, 0),
    fmt(r.peakRssMB, 1),
  ]);
  out.push(table(['tier', 'workers', 'CPU-seconds per 1M requests', 'req/s per CPU core', 'peak RSS MB'], cells), '');
}

// A p99 within this many times the generator's own send lag says more about
// the generator's timers than about the server.
const LAG_MARGIN = 3;

function fixedRate(results, settings, out) {
  const rows = results.filter((r) => r.fixedRate?.length);
  if (!rows.length) return;
  out.push('## Latency at fixed request rates (open loop)', '');
  out.push(
    `Requests leave on a fixed schedule (${settings.curves.rateFractions.map((f) => `${f * 100}%`).join(', ')} of ` +
      `\`${baselineOf(settings)}\`'s and of the tier's own closed-loop maximum), each timed from its *scheduled* ` +
      "send time, so a stall is charged to every request it delayed (no coordinated omission: wrk2's method, " +
      `bench/lib/load.js). "send lag p99" is how late the generator's own timers sent the requests; a p99 within ` +
      `${LAG_MARGIN}x of it is the generator's, not the server's, and is not shown. "behind" marks a run that ` +
      `answered under 95% of its target rate. ${settings.curves.duration} s per rate after ` +
      `${settings.curves.warmup} s at that rate; n is the number of answers (p99 is roughly the n/100-th slowest).`,
    '',
  );
  const cells = [];
  for (const r of rows) {
    for (const f of r.fixedRate) {
      const behind = f.requestsPerSecond < 0.95 * f.targetRate;
      const lag = f.sendLagMs?.p99;
      const meaningful = (x) => (Number.isFinite(lag) && x < LAG_MARGIN * lag ? 'lag' : fmt(x, 2));
      cells.push([
        name(r),
        `${f.fraction * 100}% of ${f.of === 'own' ? 'own' : `\`${f.of}\``}`,
        fmt(f.targetRate, 0),
        fmt(f.requestsPerSecond, 0),
        fmt(f.latencyMs.p50, 2),
        meaningful(f.latencyMs.p99),
        fmt(lag, 2),
        String(f.responses),
        fmt(f.serverCpuUsPerRequest, 1),
        `${flag(f)}${behind ? ', **behind**' : ''}`,
      ]);
    }
  }
  out.push(
    table(
      [
        'tier',
        'rate',
        'target/s',
        'answered/s',
        'p50 ms',
        'p99 ms',
        'send lag p99 ms',
        'n',
        'server CPU us/req',
        'status',
      ],
      cells,
    ),
    '',
  );
}

// The curves: result key, the point's x field, and its column header.
const LENGTH = { key: 'lengthCurve', x: 'length', header: (x) => `${x} B` };
const CONNECTIONS = { key: 'connectionsCurve', x: 'connections', header: (x) => `c=${x}` };

/** A tier x points table of one figure of one curve. */
function curveTable(rows, curve, xs, get, digits) {
  const point = (r, x) => r[curve.key].find((p) => p[curve.x] === x);
  return table(
    ['tier', ...xs.map(curve.header)],
    rows.map((r) => [name(r), ...xs.map((x) => fmt(get(point(r, x)), digits))]),
  );
}

function curves(results, settings, out, files) {
  const rows = results.filter((r) => r.lengthCurve?.length);
  if (!rows.length) return;
  const lengths = settings.curves.lengths;
  const conns = settings.curves.connections;
  const cpu = (p) => p?.serverCpuUsPerRequest;
  const p99 = (p) => p?.latencyMs.p99;
  out.push(
    '## Cost against input size',
    '',
    `Closed loop at ${settings.connections} connections, ${settings.curves.duration} s per point, requests whose ` +
      "input is exactly that many bytes (the configuration's `requests.ofLength`). Server CPU us per request:",
    '',
  );
  out.push(curveTable(rows, LENGTH, lengths, cpu, 1), '');
  out.push('p99 ms:', '', curveTable(rows, LENGTH, lengths, p99, 2), '');
  out.push('![CPU per request against input size](length-cpu.svg)', '');
  files['length-cpu.svg'] = lineChart({
    title: 'Server CPU per request against input size',
    xLabel: 'input bytes',
    yLabel: 'server CPU us per request (log)',
    xs: lengths,
    series: rows.map((r) => ({
      name: name(r),
      ys: lengths.map((l) => cpu(r.lengthCurve.find((p) => p.length === l))),
    })),
    logY: true,
  });
  files['length-p99.svg'] = lineChart({
    title: `p99 latency against input size (${settings.connections} connections)`,
    xLabel: 'input bytes',
    yLabel: 'p99 ms (log)',
    xs: lengths,
    series: rows.map((r) => ({
      name: name(r),
      ys: lengths.map((l) => p99(r.lengthCurve.find((p) => p.length === l))),
    })),
    logY: true,
  });

  out.push(
    '## Against connections',
    '',
    `Closed loop, the main run's requests, ${settings.curves.duration} s per point (the c=1 and ` +
      `c=${settings.connections} points are the rounds' medians). req/s (2xx only):`,
    '',
  );
  const rps = (p) => p?.requestsPerSecond;
  out.push(curveTable(rows, CONNECTIONS, conns, rps, 0), '');
  out.push(
    'p99 ms of the 2xx answers (refused answers are timed apart):',
    '',
    curveTable(rows, CONNECTIONS, conns, p99, 2),
    '',
  );
  const refused = rows.flatMap((r) =>
    r.connectionsCurve
      .filter((p) => p.non2xx)
      .map(
        (p) =>
          `\`${r.tier}\` at c=${p.connections}: ${fmt((p.non2xx / p.responses) * 100, 1)}% refused (p99 of the ` +
          `refusals ${fmt(p.refusedLatencyMs?.p99, 2)} ms)`,
      ),
  );
  if (refused.length) out.push(`Answered with a non-2xx status: ${refused.join('; ')}.`, '');
  out.push('![req/s against connections](connections-rps.svg)', '');
  files['connections-rps.svg'] = lineChart({
    title: 'Requests per second against connections',
    xLabel: 'connections (log)',
    yLabel: 'req/s (log)',
    xs: conns,
    series: rows.map((r) => ({
      name: name(r),
      ys: conns.map((c) => rps(r.connectionsCurve.find((p) => p.connections === c))),
    })),
    logX: true,
    logY: true,
  });
  files['connections-p99.svg'] = lineChart({
    title: 'p99 latency against connections',
    xLabel: 'connections (log)',
    yLabel: 'p99 ms (log)',
    xs: conns,
    series: rows.map((r) => ({
      name: name(r),
      ys: conns.map((c) => p99(r.connectionsCurve.find((p) => p.connections === c))),
    })),
    logX: true,
    logY: true,
  });

  const workers = [...new Set(results.map((r) => r.workers))];
  if (workers.length > 1) {
    const tiers = [...new Set(results.map((r) => r.tier))];
    const at = (t, w) => results.find((r) => r.tier === t && r.workers === w);
    const cell = (r) => (r ? `${isLowerBound(r) ? '≥ ' : ''}${fmt(r.requestsPerSecond, 0)}` : 'n/a');
    out.push(
      '## Against workers',
      '',
      `${settings.notes?.workers ?? 'Server worker processes (`--workers`)'}. req/s ("≥": held back by the load ` +
        'generator or the machine):',
      '',
    );
    out.push(
      table(
        ['tier', ...workers.map((w) => `workers=${w}`)],
        tiers.map((t) => [t, ...workers.map((w) => cell(at(t, w)))]),
      ),
      '',
    );
    files['workers-rps.svg'] = lineChart({
      title: 'Requests per second against server workers',
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
  out.push(
    '## autocannon against wrk',
    '',
    "The same server, requests and connections, after the rounds (autocannon: the rounds' median): wrk (C, one " +
      'thread) is the cheaper load generator, so where autocannon is the limit, wrk shows it.',
    '',
  );
  const cells = rows.map((r) => {
    const { wrk, autocannon } = r.crossCheck;
    const ratio = autocannon / wrk.requestsPerSecond;
    const limit = limitOf(r);
    let verdict = 'agree within 10%';
    if (Math.abs(ratio - 1) > 0.1)
      verdict =
        limit === 'load generator' || limit === 'machine'
          ? `differ by ${fmt(Math.abs(ratio - 1) * 100, 0)}%: autocannon held back by the ${limit}`
          : `differ by ${fmt(Math.abs(ratio - 1) * 100, 0)}%: the machine between two runs`;
    return [
      name(r),
      fmt(autocannon, 0),
      fmt(wrk.requestsPerSecond, 0),
      fmt(ratio, 2),
      fmt(r.loadGeneratorCpuCores, 2),
      fmt(wrk.cpuCores, 2),
      verdict,
    ];
  });
  out.push(
    table(['tier', 'autocannon req/s', 'wrk req/s', 'ratio', 'autocannon cores', 'wrk cores', 'verdict'], cells),
    '',
  );
}

/**
 * What the probe is, and how far its cost moved between one tier's windows
 * at the first worker count beside how far the tier's CPU per request did
 * (each the median over tiers): where both move alike, the machine's pace
 * set the spread. Within a tier, since beside another server the probe also
 * reads that server's contention.
 */
function probeText({ results }) {
  const first = results.filter((r) => r.workers === results[0]?.workers && r.runs);
  const spreadOf = (get) => median(first.map((r) => sd(r.runs.map((v) => Math.log(get(v))))));
  const probe = spreadOf((v) => v.speedProbe?.cpuUs);
  const cpu = spreadOf((v) => v.serverCpuUsPerRequest);
  return (
    " The probe is a fixed piece of work the sampler times in CPU time every 20 ms of each visit's closed-loop " +
    "window (`bench/lib/speed-probe.js`); its index is its mean cost in the round's anchor windows over their " +
    'median.' +
    (Number.isFinite(probe)
      ? ` Between one tier's windows its cost moved by ${fmt(probe * 100, 1)}% and the tier's CPU per request by ` +
        `${fmt(cpu * 100, 1)}% (standard deviations of the logarithms, the median over tiers).`
      : '')
  );
}

/**
 * Whether the warm-up was long enough: the CPU per request of each measured window's first part (load.js `head`)
 * against the rest of it, over every visit of the first group that has one; '' for reports without it.
 */
function warmupText({ results, settings }) {
  const first = results.filter((r) => r.workers === results[0]?.workers && r.runs);
  const heads = first.flatMap((r) => r.runs.filter((v) => v.measuredHead).map((v) => v.measuredHead));
  const iv = ratioInterval(heads.map((h) => h.cpuUsPerRequest / h.restCpuUsPerRequest));
  if (iv.n < 2) return '';
  const headSeconds = median(heads.map((h) => h.seconds));
  const share = headSeconds / settings.duration;
  const verdict =
    iv.low > 1 + WARMUP_EXCESS
      ? ` The windows began before the tiers had regained their pace: on this machine ${settings.warmup} s of ` +
        `warm-up is too short; as that part is ${fmt(share * 100, 0)}% of each window, the figures above read ` +
        `the tiers some ${fmt((iv.estimate - 1) * share * 100, 1)}% costlier for it.`
      : iv.low >= 1 - WARMUP_EXCESS && iv.high <= 1 + WARMUP_EXCESS
        ? ` So after ${settings.warmup} s of warm-up the windows began at the pace they kept.`
        : '';
  return (
    ` In the first ${fmt(headSeconds, 2)} s of each measured window a tier spent ` +
    `${factor(iv.estimate)} (${fmt(iv.low, 2)}-${fmt(iv.high, 2)}) the CPU per request of the rest of the window ` +
    `(the geometric mean over ${iv.n} visits, with its 95% interval).${verdict}`
  );
}

/**
 * How the first rounds (one per server: each server's first visit) read the tiers against the anchor, next to the
 * later rounds. The round is the unit, since a round's anchor visit is shared by all its tiers: each tier's log
 * CPU-per-request ratio is centred on its own later rounds, each round takes the mean over its tiers, and the first
 * rounds' mean is set against the later rounds' spread. '' without two later rounds and two tiers.
 */
function firstVisitText({ results, settings }) {
  const anchor = anchorOf(settings);
  const perServer = settings.serversPerTier ?? 1;
  const byRound = [];
  let tiers = 0;
  for (const r of results) {
    if (r.workers !== results[0]?.workers || r.tier === anchor) continue;
    // Sliced by position before dropping a failed round, so index i stays round i.
    const logs = (r.ratios?.serverCpuUsPerRequest?.perRound ?? []).map((x) => (x > 0 ? Math.log(x) : NaN));
    const later = logs.slice(perServer).filter(Number.isFinite);
    if (later.length < 2 || !logs.slice(0, perServer).some(Number.isFinite)) continue;
    tiers++;
    const centre = mean(later);
    for (const [i, x] of logs.entries()) {
      if (!Number.isFinite(x)) continue;
      byRound[i] ??= [];
      byRound[i].push(x - centre);
    }
  }
  const perRound = Array.from(byRound, (xs) => (xs ? mean(xs) : NaN));
  const first = perRound.slice(0, perServer).filter(Number.isFinite);
  const later = perRound.slice(perServer).filter(Number.isFinite);
  if (tiers < 2 || later.length < 2) return '';
  const m = mean(first) - mean(later);
  const h = t975(later.length - 1) * sd(later) * Math.sqrt(1 / first.length + 1 / later.length);
  const [estimate, low, high] = [m, m - h, m + h].map(Math.exp);
  const firstRounds = perServer === 1 ? 'round' : `${perServer} rounds`;
  const those = perServer === 1 ? 'that round' : 'those rounds';
  const verdict =
    low > 1 + WARMUP_EXCESS
      ? ` So ${those} read the tiers costlier against \`${anchor}\` than the later ones did.`
      : high < 1 - WARMUP_EXCESS
        ? ` So ${those} read the tiers cheaper against \`${anchor}\` than the later ones did.`
        : low >= 1 - WARMUP_EXCESS && high <= 1 + WARMUP_EXCESS
          ? ` So ${those} read the tiers as the later ones did, within ${WARMUP_EXCESS * 100}%.`
          : '';
  return (
    ` A tier's CPU per request against \`${anchor}\`'s in its first ${firstRounds} (each server's first ` +
    `visit of the rounds) was ${factor(estimate)} (${fmt(low, 2)}-${fmt(high, 2)}) that of its later rounds ` +
    `(over ${tiers} tiers, with a 95% interval from the spread of ${later.length} later rounds).${verdict}`
  );
}

// A window's head that cost more than this over its rest, beyond its interval: the warm-up was too short.
const WARMUP_EXCESS = 0.03;

/** Each round's order and how far the machine ran from its median: drift made visible. */
function roundsSection(report, out) {
  const groups = report.rounds ?? [];
  if (!groups.length) return;
  // Reports made before the speed probe have no column for it.
  const probed = groups.some((g) => g.rounds.some((r) => Number.isFinite(r.probe)));
  out.push('## Rounds', '');
  out.push(
    "Each round's machine index is the anchor's figure in that round over its median across rounds: 1.00 is a " +
      'typical round, 0.80 a round in which the same server ran 20% slower. Ratios are taken within a round, so ' +
      'such drift cancels out of them, though not out of the absolute figures. Steal (the hypervisor running ' +
      "other guests on our vCPUs) and softirq (network processing) are shares of all CPU time over the round's " +
      'measured windows, from /proc/stat.' +
      (probed ? probeText(report) : '') +
      warmupText(report) +
      firstVisitText(report),
    '',
  );
  const cells = [];
  for (const { workers, anchor, rounds } of groups) {
    for (const r of rounds) {
      cells.push([
        String(workers),
        String(r.round + 1),
        `\`${anchor}\``,
        fmt(r.anchorRequestsPerSecond, 2),
        fmt(r.anchorCpuUsPerRequest, 2),
        `${fmt(r.steal * 100, 1)}%`,
        `${fmt(r.softirq * 100, 1)}%`,
        ...(probed ? [fmt(r.probe, 2)] : []),
        r.order.map((k) => `\`${k}\``).join(' '),
      ]);
    }
  }
  out.push(
    table(
      [
        'workers',
        'round',
        'anchor',
        'index: req/s',
        'index: CPU us/req',
        'steal',
        'softirq',
        ...(probed ? ['index: probe'] : []),
        'order',
      ],
      cells,
    ),
    '',
  );
}

// Reports made before the load processes were kept say what their run did.
const loadProcess = (settings) =>
  settings.loadKept ? 'a load process kept for the whole run' : 'a load process of its own';

function howMeasured({ results, settings, machine }, out) {
  out.push('## How it was measured', '');
  out.push(
    `- Command: \`${settings.command}\`; it ran ${fmt(settings.wallSeconds / 60, 1)} minutes from ${settings.started}.`,
  );
  out.push(`- Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGB} GB; ${machine.os}`);
  const runtimes = (settings.runtimes ?? []).map((r) => `${r.name} ${r.version}`).join(', ');
  const alsoRuntimes = runtimes
    ? `; the cross-runtime section also ran ${runtimes} (Deno with Node's V8 flags as \`--v8-flags\`; Bun is not V8)`
    : '';
  out.push(
    `- Servers' Node: ${machine.node}${machine.v8 ? ` (V8 ${machine.v8})` : ''}` +
      `${settings.nodeArgs?.length ? `, run with \`${settings.nodeArgs.join(' ')}\`` : ''}; ` +
      `kernel ${machine.kernel ?? machine.os}` +
      `${settings.lines?.length > 1 ? `; the cross-line section also ran ${settings.lines.slice(1).join(', ')}` : ''}` +
      `${alsoRuntimes}.`,
  );
  out.push(
    `- Tools: autocannon ${machine.autocannon} (harness on node ${machine.harnessNode ?? machine.node}), ` +
      `${machine.wrk ?? 'wrk'}, ${machine.rustc}`,
  );
  if (settings.commit) out.push(`- Source: commit ${settings.commit}, ${settings.date}.`);
  out.push(
    `- Load: autocannon in ${loadProcess(settings)}, ` +
      `${settings.connections} connections, ${settings.warmup} s ` +
      `warm-up on the same connections, then ${settings.duration} s measured; ${settings.requests.paths} requests ` +
      `in rotation (${settings.requests.description}); then one connection, one request at a time, ` +
      `${settings.oneConnection.warmup} s + ${settings.oneConnection.duration} s, at the first worker count. ` +
      `Where autocannon or the machine held a visit back, wrk (one thread) ran ${Math.ceil(settings.duration)} s ` +
      'more on the same server right after.',
  );
  out.push(
    `- Interleaving: every server of a worker count started up front${servers(settings)}, warmed ` +
      `(${settings.prewarm || settings.warmup} s at ${settings.connections} connections), and stopped with ` +
      'SIGSTOP (its whole process tree) but while measured' +
      `${settings.rewarm ? `; once all had started, each resumed and warmed again for ${settings.rewarm} s` : ''}. ` +
      'Each round visits every tier still running, in an ' +
      `order rotated by one per round, the anchor \`${anchorOf(settings)}\` first and halfway.`,
  );
  out.push(
    `- When a tier stops: after ${settings.minRounds} rounds, once its CPU-per-request ratio's 95% interval is ` +
      `within ±${fmt(settings.tolerance.cpu * 100, 0)}% and its req/s ratio's within ` +
      `±${fmt(settings.tolerance.rps * 100, 0)}% (a t interval on the logarithms of its per-round ratios); a tier ` +
      `whose rounds fall into two modes runs to the cap; at most ${settings.maxRounds} rounds` +
      `${settings.budgetMinutes ? `, and no round that would end past ${settings.budgetMinutes} minutes` : ''}. ` +
      'The anchor stays while any other tier runs.',
  );
  if (settings.curves)
    out.push(
      '- The curves, fixed rates and wrk run after the rounds, one tier at a time, the others stopped; their ' +
        "rates come from the rounds' medians.",
    );
  out.push(
    `- Body bytes: the response body alone${settings.notes?.body ? ` (${settings.notes.body})` : ''}, mean over ` +
      'the requests; wire bytes: what autocannon read per response, headers included.',
  );
  out.push(
    "- Memory: peak RSS (each process's resident pages, shared libraries included) and USS (pages no other " +
      "process maps), each summed over the server's process tree and sampled every 200 ms by a sampler process: " +
      'neither depends on what other servers run, unlike PSS.',
  );
  out.push(
    '- Server CPU per request: user + system time of the whole tree (reaped children included) over the measured ' +
      'window, divided by 2xx answers. The kernel bills network processing (softirq, in "Rounds") to whichever ' +
      "task is running when it fires: some of the client's networking lands in the server's CPU and some of the " +
      "server's in the client's.",
  );
  out.push(
    '- "limited by": `server` when one of its threads ran at least 0.9 of a core over the window; ' +
      '`load generator` when autocannon ran at least 0.7 of one (its thread also waits on its sockets); `machine` ' +
      'when every core was at least 90% busy. Only the last two make req/s a lower bound ("≥"), and so is a ' +
      "figure of wrk's, which shares the machine too.",
  );
  const noLoop = results.filter((r) => !r.eventLoopDelayMs).map((r) => `\`${r.tier}\``);
  if (noLoop.length < results.length) {
    out.push(
      '- Event-loop delay: `monitorEventLoopDelay` at 1 ms resolution inside the server, the resolution ' +
        'subtracted (an idle loop reads 0); every worker reset at the start of the window and read at its end ' +
        '(matched by pid), the worst worker shown' +
        `${noLoop.length ? `; n/a where the server does not report it (${[...new Set(noLoop)].join(', ')})` : ''}.`,
    );
  }
  const references = Object.entries(settings.references ?? {}).filter(([tier]) => results.some((r) => r.tier === tier));
  for (const [tier, what] of references) out.push(`- \`${tier}\` (reference): ${what}.`);
  if (settings.config) out.push(`- Tiers and requests: ${settings.config}.`);
  const compare = settings.command?.startsWith('tier-bench') ? 'tier-bench-compare' : 'node bench/compare.js';
  out.push(
    `- A second run reproduces the ratios, not the absolute figures: \`${compare} OLD NEW\` compares two runs' ` +
      'ratios against their noise.',
  );
}

/** Every file of the report, by name. */
function render(report) {
  const { results, settings } = report;
  const out = [`# ${settings.title}: benchmark report`, ''];
  const files = {};
  verdictLines(report, out);
  relativeTables(report, out, files);
  predictionSection(report, out);
  mainTables(report, out);
  frameworkCost(results, settings, out);
  pairsSection(results, settings, out);
  crossLineSection(report, out);
  crossRuntimeSection(report, out);
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

module.exports = {
  render,
  fmt,
  table,
  interval,
  rpsRatio,
  rpsCell,
  factor,
  pairRatio,
  rateAt,
  halfRateCpu,
  baselineOf,
  anchorOf,
  name,
};
