#!/usr/bin/env node
'use strict';

// tier-bench: every tier of a service under the same autocannon load, one
// report. `tier-bench --help` for the options; in this repository
// `node bench/run.js` (its bench.config.js), `make bench` builds first.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { createMeter, visit, curvesOf, meanBodyBytes, closed } = require('./lib/measure');
const { createLoad } = require('./lib/load');
const { runRounds, summarize, stopRule } = require('./lib/rounds');
const { isLowerBound } = require('./lib/limit');
const { freeze, thaw } = require('./lib/freeze');
const { describeMachine } = require('./lib/machine');
const { nodeBinary, otherInstalledLines, describeNode } = require('./lib/node-lines');
const { pinnedRuntimes, runtimeArgs, runtimesNamed } = require('./lib/runtimes');
const report = require('./lib/report');
const readme = require('./lib/readme');
const { startTier } = require('./lib/launch');
const { loadConfig, tierOf, DEFAULT_CONFIG } = require('./lib/tier-config');
const { readPrediction } = require('./lib/prediction');

const CURVE_CONNECTIONS = [1, 10, 100, 1000];
const RATE_FRACTIONS = [0.25, 0.5, 0.9];
// The adaptive stop: at least MIN_ROUNDS rounds, then a tier leaves once its
// CPU-per-request ratio's 95% interval is within ±5% and its req/s ratio's
// within ±10%, or at the cap, or when the next round would end past the time
// budget, counted from the start of the run (servers started and warmed
// included). On a shared VM the spread is between visits, not within one, so
// visits are short and rounds many: 1 s of warm-up (enough with the load
// processes kept warm for the whole run, lib/load.js; the report checks it on
// every run) and 2 s measured, then one connection for 1 s.
// See docs/benchmark.md, "How a run works".
const MIN_ROUNDS = 5;
const MAX_ROUNDS = 20;
const BUDGET_MINUTES = 14;
const TOLERANCE = { cpu: 0.05, rps: 0.1 };
const WARMUP_S = 1;
const DURATION_S = 2;
const ONE_CONNECTION = { warmup: 0.25, duration: 1 };
// Each tier on two server processes, visited in turn (lib/rounds.js), each
// warmed for half of what one server was.
const SERVERS_PER_TIER = 2;
const PREWARM_S = 5;
// Then, once every server has started and been stopped, each once more for
// as long as a visit's closed-loop window: a server's first visit after its
// first stop read the tiers some 5% costlier against js than its later ones
// (CHANGELOG.md); its second visit did not.
const REWARM_S = WARMUP_S + DURATION_S;

// V8's memory reducer shrinks the heap of a process that has gone 100 s
// without a full GC (its watchdog). A server stopped between its visits looks
// like that to it; one under steady load never does. See docs/benchmark.md.
const NODE_ARGS = '--no-memory-reducer';

const USAGE = `Usage: tier-bench [options]   (in this repository: node bench/run.js)

Every tier's servers (${SERVERS_PER_TIER}, visited in turn; one with --quick) start up front; all but the one being
measured are stopped (SIGSTOP). Each round visits every tier still running in a rotated
order, the anchor (the configuration's baseline) twice; each tier's ratios
to the anchor come from within one round. After ${MIN_ROUNDS} rounds a tier stops once
its ratios' 95% intervals are within ±${TOLERANCE.cpu * 100}% (CPU per request) and
±${TOLERANCE.rps * 100}% (req/s). One worker; --full adds two workers, curves,
fixed rates, the other Node lines and the other runtimes.

  --config FILE     the service's tiers and request mix (default: ${DEFAULT_CONFIG} in the
                    current directory; its type: BenchConfig in tier-bench's index.d.ts)
  --tiers LIST      comma-separated (default: every tier of the configuration)
  --full            the long run: worker counts 1 and 2, the cost curves, fixed-rate
                    latency, wrk, the other installed Node lines and runtimes
  --workers LIST    server worker counts, for tiers that take one (default: 1; --full: 1,2)
  --node LINE|PATH  the Node the servers run on: a supported line (22, 24, 26) or a
                    node executable (default: the node running this script)
  --lines LIST      with --full, other Node lines for the cross-line section
                    (default: every other supported line installed; "none" to skip)
  --runtimes LIST   other runtimes (bun, deno) for the cross-runtime section (default:
                    with --full, every pinned runtime installed; "none" to skip)
  --node-args ARGS  Node's own flags for the servers that run on it (default: "${NODE_ARGS}")
  --max-rounds N    the cap on rounds (default: ${MAX_ROUNDS})
  --min-rounds N    rounds before a tier may stop (default: ${MIN_ROUNDS})
  --rounds N        exactly N rounds, no adaptive stop
  --budget MIN      start no round that would end past MIN minutes after the run began
                    (--full: after each group of rounds began; default: ${BUDGET_MINUTES})
  --connections N   concurrent connections (default: 100)
  --out DIR         where report.md, results.json and the charts go (default: bench/out)
  --prediction FILE what tier-bench-profile predicted (its profile.json), shown beside each
                    tier's ratios (default: the configuration's \`prediction\`, where it exists)
  --readme FILE     also write the report's summary into FILE between
                    <!-- bench:begin --> and <!-- bench:end -->
  --render DIR      measure nothing: render DIR/results.json again (with --readme, the summary too)
  --quick           two short rounds, one server per tier (for CI)

A soak (memory over minutes) is its own command: tier-bench-soak (bench/soak.js).`;

function parseOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      config: { type: 'string', default: DEFAULT_CONFIG },
      tiers: { type: 'string' },
      full: { type: 'boolean', default: false },
      workers: { type: 'string' },
      node: { type: 'string' },
      lines: { type: 'string' },
      runtimes: { type: 'string' },
      'node-args': { type: 'string', default: NODE_ARGS },
      'max-rounds': { type: 'string' },
      'min-rounds': { type: 'string' },
      rounds: { type: 'string' },
      budget: { type: 'string' },
      connections: { type: 'string', default: '100' },
      out: { type: 'string' },
      readme: { type: 'string' },
      prediction: { type: 'string' },
      render: { type: 'string' },
      quick: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return null;
  if (values.render)
    return { render: path.resolve(values.render), readme: values.readme && path.resolve(values.readme) };
  const config = loadConfig(values.config);
  const tiers = values.tiers ? values.tiers.split(',').filter(Boolean) : config.tiers.map((t) => t.name);
  for (const t of tiers) tierOf(config, t);
  const { requests } = config;
  const lengths = requests.ofLength ? (requests.lengths ?? []) : [];
  const { quick, full } = values;
  const workers = (values.workers ?? (full ? '1,2' : '1')).split(',').map(Number);
  const node = values.node ? nodeBinary(values.node) : process.execPath;
  const lines =
    !full || values.lines === 'none'
      ? []
      : values.lines
        ? values.lines.split(',').map(nodeBinary)
        : otherInstalledLines(node);
  const runtimes =
    values.runtimes === 'none' || (!full && !values.runtimes)
      ? []
      : values.runtimes
        ? runtimesNamed(values.runtimes)
        : pinnedRuntimes().filter((r) => r.installed);
  const exact = values.rounds && Number(values.rounds);
  const minRounds = exact || Number(values['min-rounds'] ?? (quick ? 2 : MIN_ROUNDS));
  const maxRounds = exact || Math.max(minRounds, Number(values['max-rounds'] ?? (quick ? 2 : MAX_ROUNDS)));
  return {
    // Read before the run: the code that was measured, whatever changes during it.
    commit: gitDescribe(),
    tiers,
    full,
    workers,
    node,
    nodeArgs: values['node-args'].split(' ').filter(Boolean),
    // Quick: one other line (the oldest) is enough to exercise the cross-line section.
    lines: quick && !values.lines ? lines.slice(-1) : lines,
    // Quick: one other runtime (the last pinned) is enough to exercise the cross-runtime section.
    runtimes: quick && !values.runtimes ? runtimes.slice(-1) : runtimes,
    minRounds,
    maxRounds,
    budgetMinutes: Number(values.budget ?? BUDGET_MINUTES),
    tolerance: TOLERANCE,
    connections: Number(values.connections),
    duration: quick ? 1 : DURATION_S,
    warmup: quick ? 0.5 : WARMUP_S,
    // Servers on V8 cost 10-15% more CPU per request after
    // some seconds of load than in their first (V8 and heap settling).
    prewarm: quick ? 0 : PREWARM_S,
    rewarm: quick ? 0 : REWARM_S,
    // Two short rounds check that every part runs; a second server per tier buys them nothing.
    serversPerTier: quick ? 1 : SERVERS_PER_TIER,
    oneConnection: quick ? { warmup: 0, duration: 0.5 } : ONE_CONNECTION,
    config,
    paths: requests.paths,
    out: path.resolve(values.out ?? 'bench/out'),
    readme: values.readme && path.resolve(values.readme),
    prediction: readPrediction(values.prediction, config),
    curves: full && {
      connections: quick ? [1, 10, Number(values.connections)] : CURVE_CONNECTIONS,
      lengths: (quick && lengths.length > 2 ? [lengths[0], lengths.at(-1)] : lengths).map((length) => ({
        length,
        paths: requests.ofLength(length),
      })),
      rateFractions: quick ? [0.5] : RATE_FRACTIONS,
      curveWarmup: quick ? 0 : 1,
      curveDuration: quick ? 1 : 3,
      wrkSeconds: quick ? 1 : 5,
    },
  };
}

/** What every report says about how it was made. */
function commonSettings(options) {
  return {
    // As typed: tier-bench from a project, node bench/run.js in this repository.
    command: (
      `${path.basename(process.argv[1]) === 'run.js' ? 'node bench/run.js' : 'tier-bench'} ` +
      `${process.argv.slice(2).join(' ')}`
    ).trim(),
    connections: options.connections,
    warmup: options.warmup,
    // The load processes live for the whole run (lib/load.js); reports before them forked one per window.
    loadKept: true,
    prewarm: options.prewarm,
    rewarm: options.rewarm,
    serversPerTier: options.serversPerTier,
    duration: options.duration,
    config: path.relative(process.cwd(), options.config.file),
    title: options.config.title,
    baseline: options.config.baseline,
    requests: { description: options.config.requests.description, paths: options.paths.length },
    references: Object.fromEntries(options.config.tiers.filter((t) => t.reference).map((t) => [t.name, t.reference])),
    frameworkCost: options.config.frameworkCost,
    pairs: options.config.pairs,
    notes: options.config.notes,
    commit: options.commit,
    date: new Date().toISOString().slice(0, 10),
  };
}

/** The checked-out commit, "+changes" when the tree differs from it; null outside git. */
function gitDescribe() {
  const git = (...args) => spawnSync('git', args, { encoding: 'utf8' });
  const head = git('rev-parse', '--short', 'HEAD');
  if (head.status !== 0) return null;
  const dirty = git('status', '--porcelain', '--untracked-files=no').stdout.trim();
  return `${head.stdout.trim()}${dirty ? '+changes' : ''}`;
}

/** What a long run has measured so far, in case it is stopped: partial.json, removed when the report is written. */
function keepPartial(out, data) {
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, 'partial.json'), `${JSON.stringify(data)}\n`);
}

/** Writes results.json and every file the report module renders from it; with `readmeFile`, its summary. */
function writeReport(out, data, render, readmeFile) {
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, 'results.json'), `${JSON.stringify(data, null, 2)}\n`);
  fs.rmSync(path.join(out, 'partial.json'), { force: true });
  writeRendered(out, data, render, readmeFile);
}

function writeRendered(out, data, render, readmeFile) {
  const files = render(data);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(out, name), text);
  console.log(files['report.md']);
  console.log(`written to ${out}/: results.json, ${Object.keys(files).join(', ')}`);
  if (readmeFile) {
    readme.update(readmeFile, readme.section(data, path.relative(path.dirname(readmeFile), out) || '.'));
    console.log(`benchmark summary written into ${readmeFile}`);
  }
}

// Servers started and not yet stopped: thawed and stopped if this process is interrupted.
const live = new Set();
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    for (const server of live) {
      thaw(server.child.pid);
      server.child.kill('SIGTERM');
    }
    process.exit(130);
  });
}

/**
 * The subjects of one worker count: every tier (those that take no worker count at the first only,
 * the anchor always).
 */
function tierPlan(first, anchor, options) {
  return options.tiers
    .map((tier) => ({ key: tier, tier, entry: tierOf(options.config, tier), node: options.node }))
    .filter((s) => first || !s.entry.singleProcess || s.tier === anchor);
}

/** The cross-line subjects: the anchor, and the configuration's crossLine tiers on the pinned line and every other. */
function linePlan(anchor, options) {
  const plan = [{ key: anchor, tier: anchor, entry: tierOf(options.config, anchor), node: options.node }];
  for (const exe of [options.node, ...options.lines]) {
    const line = describeNode(exe).node.replace(/^v/, '');
    for (const tier of (options.config.crossLine ?? []).filter((t) => options.tiers.includes(t))) {
      plan.push({ key: `${tier}@${line}`, tier, entry: tierOf(options.config, tier), node: exe, line });
    }
  }
  return plan;
}

/**
 * The cross-runtime subjects: the anchor, and the configuration's crossRuntime tiers on the pinned Node and on
 * each other runtime. Bun runs JavaScriptCore, so Node's V8 flags are not its; Deno gets them as --v8-flags.
 */
function runtimePlan(anchor, options) {
  const plan = [{ key: anchor, tier: anchor, entry: tierOf(options.config, anchor), node: options.node }];
  const v8Flags = options.nodeArgs.length ? [`--v8-flags=${options.nodeArgs.join(',')}`] : [];
  const targets = [
    { exe: options.node, runtime: `Node ${describeNode(options.node).node.replace(/^v/, '')}` },
    ...options.runtimes.map((r) => ({
      exe: r.bin,
      runtime: `${r.name === 'bun' ? 'Bun' : 'Deno'} ${r.version}`,
      nodeArgs: [...runtimeArgs(r), ...(r.name === 'deno' ? v8Flags : [])],
    })),
  ];
  for (const { exe, runtime, nodeArgs } of targets) {
    for (const tier of (options.config.crossRuntime ?? []).filter((t) => options.tiers.includes(t))) {
      const key = `${tier}@${runtime.replace(' ', '-').toLowerCase()}`;
      plan.push({ key, tier, entry: tierOf(options.config, tier), node: exe, nodeArgs, runtime });
    }
  }
  return plan;
}

/**
 * Starts the servers of each subject of `plan`, warms each, reads the body bytes, and freezes them; then
 * warms each once more after its stop (`options.rewarm`). `servers[0]` is the one the curves measure.
 */
async function startSubjects(plan, workers, options, log) {
  const { config, paths, connections } = options;
  const subjects = [];
  try {
    for (const s of plan) {
      const subject = { ...s, servers: [] };
      subjects.push(subject);
      for (let i = 0; i < options.serversPerTier; i++) {
        log(`starting ${s.key} w=${workers} (server ${i + 1} of ${options.serversPerTier})`, true);
        const server = await startTier(s.tier, {
          workers,
          node: s.node,
          nodeArgs: s.nodeArgs ?? options.nodeArgs,
          config,
        });
        live.add(server);
        // Listed before anything else can fail, so that stopSubjects stops it.
        const started = { server, meter: null, root: server.child.pid };
        subject.servers.push(started);
        const meter = createMeter(server, { entry: s.entry, workers, load: options.load, log });
        started.meter = meter;
        const first = options.prewarm || options.warmup;
        if (first) await meter.window(closed(connections, paths, 0, first), { label: `${s.key} warm-up` });
        subject.meanBodyBytes ??= await meanBodyBytes(server.url, paths);
        freeze(server.child.pid);
      }
    }
    if (options.rewarm) {
      for (const s of subjects) {
        for (const { meter, root } of s.servers) {
          thaw(root);
          try {
            await meter.window(closed(connections, paths, 0, options.rewarm), { label: `${s.key} warm-up again` });
          } finally {
            freeze(root);
          }
        }
      }
    }
  } catch (err) {
    await stopSubjects(subjects);
    throw err;
  }
  return subjects;
}

async function stopSubjects(subjects) {
  for (const { server, meter, root } of subjects.flatMap((s) => s.servers)) {
    // One that fails to stop leaves the others to stop; the signal handler's list keeps it.
    try {
      thaw(root);
      meter?.close();
      await server.stop();
      live.delete(server);
    } catch (err) {
      process.stderr.write(`bench: stopping a server failed: ${err.message}\n`);
    }
  }
}

/** One worker count's interleaved rounds, each subject's row, and why it stopped. */
async function measureRounds(subjects, { workers, oneConnection, anchor, since, starting }, options, log) {
  const { visits, stopped, began, visitSeconds } = await runRounds(subjects, {
    anchor,
    minRounds: options.minRounds,
    maxRounds: options.maxRounds,
    // The first group of rounds is the default run, counted from its start;
    // each later group of a full run has a budget of its own.
    deadline: since + options.budgetMinutes * 60_000,
    stop: stopRule(options.tolerance),
    measure: (s, round, server) =>
      visit(s.servers[server].meter, {
        label: `round ${round + 1} ${s.key} w=${workers}`,
        connections: options.connections,
        paths: options.paths,
        warmup: options.warmup,
        duration: options.duration,
        oneConnection: oneConnection && options.oneConnection,
        eventLoop: Boolean(s.entry.eventLoop),
        limited: isLowerBound,
      }),
    onRound: (round, active) => log(`round ${round + 1} done; still running: ${active.join(', ') || 'none'}`),
  });
  const summary = summarize(visits, anchor);
  const rows = subjects.map((s) => {
    const { main: figures, single, wrk, runs, ratios } = summary.subjects.get(s.key);
    const row = {
      tier: s.tier,
      workers,
      connections: options.connections,
      ...figures,
      meanBodyBytes: s.meanBodyBytes,
      ...(single && { oneConnectionLatencyMs: single.latencyMs, oneConnection: single }),
      ...(wrk && { wrk }),
      reference: Boolean(s.entry.reference),
      group: s.entry.group ?? null,
      ratios,
      stop: stopped.get(s.key),
      visits: runs.length,
      runs,
    };
    const r = ratios.requestsPerSecond;
    log(
      `${s.key} w=${workers}: x${r.estimate.toFixed(3)} of ${anchor} (${r.low.toFixed(3)}-${r.high.toFixed(3)}), ` +
        `${row.stop.rounds} rounds, ${row.stop.reason}`,
    );
    return { subject: s, row };
  });
  // The seconds before the first visit (the servers started and warmed) and a
  // visit's mean: the report's estimate of a run long enough for the intervals.
  const setupSeconds = (began - starting) / 1000;
  return { rows, rounds: { workers, anchor, setupSeconds, visitSeconds, rounds: summary.rounds } };
}

async function main() {
  let options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (err) {
    console.error(`bench: ${err.message}\n\n${USAGE}`);
    process.exit(2);
  }
  if (!options) return console.log(USAGE);
  if (options.render) {
    const data = JSON.parse(fs.readFileSync(path.join(options.render, 'results.json'), 'utf8'));
    return writeRendered(options.render, data, report.render, options.readme);
  }
  // One set of load processes for the whole run, warm from window to window (lib/load.js).
  options.load = createLoad();
  try {
    await measureAll(options);
  } finally {
    options.load.close();
  }
}

/** Every group of rounds `options` asks for, then the report. */
async function measureAll(options) {
  const { paths, config } = options;
  const anchor = options.tiers.includes(config.baseline) ? config.baseline : options.tiers[0];
  const log = (line, partial) => process.stderr.write(`\r\x1b[K${line}${partial ? '' : '\n'}`);
  const started = new Date();
  const results = [];
  const crossLine = [];
  const crossRuntime = [];
  const rounds = [];
  let baselineMax;
  for (const workers of options.workers) {
    const first = workers === options.workers[0];
    const starting = Date.now();
    const subjects = await startSubjects(tierPlan(first, anchor, options), workers, options, log);
    try {
      // The per-call cost does not depend on the worker count: c=1 at the first only.
      const since = first ? started.getTime() : Date.now();
      const group = { workers, oneConnection: first, anchor, since, starting };
      const measured = await measureRounds(subjects, group, options, log);
      rounds.push(measured.rounds);
      results.push(...measured.rows.map(({ row }) => row));
      keepPartial(options.out, { results, crossLine, crossRuntime, rounds });
      if (first) baselineMax = results.find((r) => r.tier === config.baseline)?.requestsPerSecond;
      if (first && options.curves) {
        for (const s of subjects) {
          const result = results.find((r) => r.tier === s.tier && r.workers === workers);
          const [{ meter, root }] = s.servers;
          thaw(root);
          try {
            Object.assign(
              result,
              await curvesOf(meter, {
                tier: s.tier,
                config,
                curves: options.curves,
                connections: options.connections,
                paths,
                main: result,
                single: result.oneConnection,
                baselineMax,
              }),
            );
          } finally {
            freeze(root);
          }
          log(`${s.key}: curves done`);
        }
      }
    } finally {
      await stopSubjects(subjects);
    }
    if (first && options.lines.length && config.crossLine?.length) {
      // The other Node lines in rounds of their own, with the anchor and the pinned line's same tiers.
      const since = Date.now();
      const lineSubjects = await startSubjects(linePlan(anchor, options), workers, options, log);
      try {
        const measured = await measureRounds(
          lineSubjects,
          { workers, oneConnection: false, anchor, since, starting: since },
          options,
          log,
        );
        rounds.push({ ...measured.rounds, lines: true });
        for (const { subject, row } of measured.rows) {
          if (subject.line) crossLine.push({ ...row, line: subject.line, v8: describeNode(subject.node).v8 });
        }
        keepPartial(options.out, { results, crossLine, crossRuntime, rounds });
      } finally {
        await stopSubjects(lineSubjects);
      }
    }
    if (first && options.runtimes.length && config.crossRuntime?.length) {
      // Bun and Deno in rounds of their own, with the anchor and the same tiers on the pinned Node.
      const since = Date.now();
      const runtimeSubjects = await startSubjects(runtimePlan(anchor, options), workers, options, log);
      try {
        const group = { workers, oneConnection: true, anchor, since, starting: since };
        const measured = await measureRounds(runtimeSubjects, group, options, log);
        rounds.push({ ...measured.rounds, runtimes: true });
        for (const { subject, row } of measured.rows) {
          if (subject.runtime) crossRuntime.push({ ...row, runtime: subject.runtime });
        }
        keepPartial(options.out, { results, crossLine, crossRuntime, rounds });
      } finally {
        await stopSubjects(runtimeSubjects);
      }
    }
  }
  const ended = new Date();
  const settings = {
    ...commonSettings(options),
    anchor,
    full: options.full,
    minRounds: options.minRounds,
    maxRounds: options.maxRounds,
    budgetMinutes: options.budgetMinutes,
    tolerance: options.tolerance,
    oneConnection: options.oneConnection,
    started: started.toISOString(),
    wallSeconds: (ended.getTime() - started.getTime()) / 1000,
    lines: [describeNode(options.node).node, ...options.lines.map((exe) => describeNode(exe).node)],
    runtimes: options.runtimes.map(({ name, version }) => ({ name, version })),
    nodeArgs: options.nodeArgs,
    curves: options.curves && {
      connections: options.curves.connections,
      lengths: options.curves.lengths.map((l) => l.length),
      rateFractions: options.curves.rateFractions,
      warmup: options.curves.curveWarmup,
      duration: options.curves.curveDuration,
      wrkSeconds: options.curves.wrkSeconds,
    },
  };
  writeReport(
    options.out,
    {
      results,
      crossLine,
      crossRuntime,
      rounds,
      settings,
      machine: describeMachine(options.node),
      ...(options.prediction && { prediction: options.prediction }),
    },
    report.render,
    options.readme,
  );
  // The rounds must be clean; the curves may show a tier refusing load (503) at 1000 connections.
  if ([...results, ...crossLine, ...crossRuntime].some((r) => r.errors || r.non2xx)) process.exitCode = 1;
}

main().catch((err) => {
  console.error(`bench: ${err.stack}`);
  process.exit(1);
});
