#!/usr/bin/env node
'use strict';

// tier-bench: every tier of a service under the same autocannon load, one
// report. `tier-bench --help` for the options; in this repository
// `node bench/run.js` (its bench.config.js), `make bench` builds first.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { createMeter, visit, curvesOf, meanBodyBytes, closed } = require('./lib/measure');
const { runRounds, summarize, measuresOneConnection } = require('./lib/rounds');
const { freeze, thaw } = require('./lib/freeze');
const { describeMachine } = require('./lib/machine');
const { nodeBinary, otherInstalledLines, describeNode } = require('./lib/node-lines');
const report = require('./lib/report');
const readme = require('./lib/readme');
const soakReport = require('./lib/soak-report');
const { soakTier, parseDuration } = require('./lib/soak');
const { startTier } = require('./lib/launch');
const { loadConfig, tierOf, DEFAULT_CONFIG } = require('./lib/tier-config');

const CURVE_CONNECTIONS = [1, 10, 100, 1000];
const RATE_FRACTIONS = [0.25, 0.5, 0.9];
// On a shared VM a visit's cost per request moves ~5% from the next visit's
// (the spread is between visits, not within one): twenty rounds leave a
// ratio's median a standard error of about 1-2%, five of 1-6%. Visits stay
// 2 s + 4 s: some tiers take seconds to regain their pace after a resume, and
// a shorter visit bills them for it. The c=1 latency needs fewer rounds. See
// docs/benchmark.md, "How many rounds".
const ROUNDS = 20;
const WARMUP_S = 2;
const DURATION_S = 4;
const ONE_CONNECTION_ROUNDS = 5;

// V8's memory reducer shrinks the heap of a process that has gone 100 s
// without a full GC (its watchdog). A server stopped between its visits looks
// like that to it; one under steady load never does. See docs/benchmark.md.
const NODE_ARGS = '--no-memory-reducer';

const USAGE = `Usage: tier-bench [options]   (in this repository: node bench/run.js)

Every tier's server starts up front; all but the one being measured are
stopped (SIGSTOP). Each round visits every tier in a rotated order, the
anchor (the configuration's baseline) twice, and each tier's ratios to the
anchor come from within one round: the report gives their median and range.

  --config FILE       the service's tiers and request mix (default: ${DEFAULT_CONFIG} in the
                      current directory; its type: BenchConfig in tier-bench's index.d.ts)
  --tiers LIST        comma-separated (default: every tier of the configuration)
  --workers LIST      server worker counts, for tiers that take one (default: 1,2)
  --node LINE|PATH    the Node the servers run on: a supported line (22, 24, 26) or a
                      node executable (default: the node running this script; make uses .nvmrc's)
  --lines LIST        other Node lines for the cross-line section (default: every other
                      supported line installed; "none" to skip)
  --node-args ARGS    Node's own flags for the servers that run on it, space-separated
                      (default: "${NODE_ARGS}"; "" for none; --soak runs V8's defaults)
  --rounds N          interleaved rounds (default: ${ROUNDS})
  --connections N     concurrent connections (default: 100)
  --duration S        measured seconds per visit (default: ${DURATION_S})
  --warmup S          warm-up seconds per visit, on the visit's fresh connections (default: ${WARMUP_S})
  --prewarm S         load on each server once, at start, before the first round (default: 20)
  --out DIR           where report.md, results.json and the charts go (default: bench/out)
  --readme FILE       also write the report's summary into FILE between
                      <!-- bench:begin --> and <!-- bench:end -->
  --render DIR        measure nothing: render DIR/results.json again (with --readme, the summary too)
  --load-processes N  autocannon processes sharing the connections (default: 1)
  --pin               load generator, sampler and wrk on CPU 0, servers on the others
                      (taskset, every thread); refused without a CPU per worker left
  --no-curves         only the rounds: no cost curves, fixed-rate runs or wrk
  --curve-duration S  measured seconds per curve point and fixed rate (default: 3)
  --one-connection-rounds N
                      how many rounds, evenly spread, also measure one connection (default: ${ONE_CONNECTION_ROUNDS})
  --quick             two short rounds, worker count 1, fewer curve points (for CI)
  --soak DURATION     soak mode instead: each tier (default: the configuration's soakTiers) under
                      load for DURATION (e.g. 10m); passes when RSS grows < 5%
                      (default --out bench/out/soak)
  --soak-warmup S     warm-up before the soak's first RSS sample (default: 60)`;

function parseOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      config: { type: 'string', default: DEFAULT_CONFIG },
      tiers: { type: 'string' },
      workers: { type: 'string' },
      node: { type: 'string' },
      lines: { type: 'string' },
      'node-args': { type: 'string', default: NODE_ARGS },
      rounds: { type: 'string' },
      connections: { type: 'string', default: '100' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      prewarm: { type: 'string' },
      out: { type: 'string' },
      readme: { type: 'string' },
      render: { type: 'string' },
      'load-processes': { type: 'string', default: '1' },
      pin: { type: 'boolean', default: false },
      'no-curves': { type: 'boolean', default: false },
      'curve-duration': { type: 'string' },
      'one-connection-rounds': { type: 'string' },
      quick: { type: 'boolean', default: false },
      soak: { type: 'string' },
      'soak-warmup': { type: 'string', default: '60' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return null;
  if (values.render) return { render: path.resolve(values.render), readme: values.readme && path.resolve(values.readme) };
  const soak = values.soak === undefined ? null : parseDuration(values.soak);
  const config = loadConfig(values.config);
  const defaultTiers = soak ? (config.soakTiers ?? config.tiers.map((t) => t.name)) : config.tiers.map((t) => t.name);
  const tiers = values.tiers ? values.tiers.split(',').filter(Boolean) : defaultTiers;
  for (const t of tiers) tierOf(config, t);
  const { requests } = config;
  const lengths = requests.ofLength ? requests.lengths ?? [] : [];
  const quick = values.quick;
  const workers = (values.workers ?? (quick ? '1' : '1,2')).split(',').map(Number);
  const curveDuration = Number(values['curve-duration'] ?? (quick ? 1 : 3));
  const node = values.node ? nodeBinary(values.node) : process.execPath;
  const lines = values.lines === 'none' ? [] : values.lines ? values.lines.split(',').map(nodeBinary) : otherInstalledLines(node);
  return {
    // Read before the run: the code that was measured, whatever changes during it.
    commit: gitDescribe(),
    tiers,
    workers,
    node,
    nodeArgs: values['node-args'].split(' ').filter(Boolean),
    // Quick: one other line (the oldest) is enough to exercise the cross-line section.
    lines: soak ? [] : quick && !values.lines ? lines.slice(-1) : lines,
    rounds: Number(values.rounds ?? (quick ? 2 : ROUNDS)),
    connections: Number(values.connections),
    duration: soak ?? Number(values.duration ?? (quick ? 1 : DURATION_S)),
    warmup: soak ? parseDuration(values['soak-warmup']) : Number(values.warmup ?? (quick ? 0 : WARMUP_S)),
    // node-server's in-process tiers cost 10-15% more CPU per request after
    // ~25 s of load than in their first seconds (V8 and heap settling): without
    // this, round 1 reads low and the medians move between runs.
    prewarm: soak ? 0 : Number(values.prewarm ?? (quick ? 0 : 20)),
    soak: soak !== null,
    oneConnection: { ...(quick ? { warmup: 0, duration: 1 } : { warmup: 1, duration: 2 }), rounds: Number(values['one-connection-rounds'] ?? ONE_CONNECTION_ROUNDS) },
    config,
    paths: requests.paths,
    out: path.resolve(values.out ?? (soak ? 'bench/out/soak' : 'bench/out')),
    readme: values.readme && path.resolve(values.readme),
    loadProcesses: Number(values['load-processes']),
    pin: values.pin ? pin(Math.max(...workers)) : null,
    curves: !soak && !values['no-curves'] && {
      connections: quick ? [1, 10, Number(values.connections)] : CURVE_CONNECTIONS,
      lengths: (quick && lengths.length > 2 ? [lengths[0], lengths.at(-1)] : lengths).map((length) => ({ length, paths: requests.ofLength(length) })),
      rateFractions: quick ? [0.5] : RATE_FRACTIONS,
      curveWarmup: quick ? 0 : 1,
      curveDuration,
      wrkSeconds: quick ? 1 : 5,
    },
  };
}

/**
 * CPU 0 for the load processes, the sampler and wrk (taskset at exec pins
 * every thread they start); the servers get the rest. Refused when that
 * leaves fewer CPUs than node-server workers: the comparison would be unfair.
 */
function pin(maxWorkers) {
  const cores = os.availableParallelism();
  if (cores - 1 < maxWorkers) {
    throw new Error(`--pin needs one CPU for the load generator and one per worker (${maxWorkers}): this machine has ${cores}`);
  }
  return { client: '0', server: `1-${cores - 1}` };
}

/** What every report says about how it was made. */
function commonSettings(options) {
  return {
    // As typed: tier-bench from a project, node bench/run.js in this repository.
    command: `${path.basename(process.argv[1]) === 'run.js' ? 'node bench/run.js' : 'tier-bench'} ${process.argv.slice(2).join(' ')}`.trim(),
    connections: options.connections,
    warmup: options.warmup,
    prewarm: options.prewarm,
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

/** Writes results.json and every file the report module renders from it; with `readmeFile`, its summary. */
function writeReport(out, data, render, readmeFile) {
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, 'results.json'), `${JSON.stringify(data, null, 2)}\n`);
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

async function soak(options) {
  const { paths } = options;
  const results = [];
  for (const tier of options.tiers) {
    const result = await soakTier(tier, {
      ...options,
      paths,
      onProgress: ({ second, total, rps }) =>
        second <= total && process.stderr.write(`\r\x1b[Ksoak ${tier}: ${second}/${total} s, ${rps} req/s`),
    });
    process.stderr.write(`\r\x1b[Ksoak ${tier}: RSS ${result.rss.startMB.toFixed(1)} -> ${result.rss.endMB.toFixed(1)} MB (${(result.rss.growth * 100).toFixed(2)}%), ${result.pass ? 'pass' : 'FAIL'}\n`);
    results.push(result);
  }
  writeReport(options.out, { results, settings: commonSettings(options), machine: describeMachine(options.node) }, (r) => ({
    'report.md': soakReport.markdown(r),
    'chart.svg': soakReport.svg(r.results),
  }));
  if (results.some((r) => !r.pass)) process.exitCode = 1;
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
 * The servers of one worker count: every tier (those that take no worker
 * count at the first only, the anchor always) and, at the first, the
 * configuration's crossLine tiers on each other Node line. Each is started,
 * warmed, its body bytes read, and frozen.
 */
async function startSubjects(workers, first, anchor, options, log) {
  const { config, paths, connections } = options;
  const plan = [];
  for (const tier of options.tiers) {
    const entry = tierOf(config, tier);
    if (first || !entry.singleProcess || tier === anchor) plan.push({ key: tier, tier, entry, node: options.node });
  }
  if (first) {
    for (const exe of options.lines) {
      const version = describeNode(exe).node.replace(/^v/, '');
      for (const tier of (config.crossLine ?? []).filter((t) => options.tiers.includes(t))) {
        plan.push({ key: `${tier}@${version}`, tier, entry: tierOf(config, tier), node: exe, line: version });
      }
    }
  }
  const subjects = [];
  try {
    for (const s of plan) {
      log(`starting ${s.key} w=${workers}`, true);
      const server = await startTier(s.tier, { workers, node: s.node, nodeArgs: options.nodeArgs, cpus: options.pin?.server, config });
      live.add(server);
      const meter = createMeter(server, { entry: s.entry, workers, clientCpus: options.pin?.client, loadProcesses: options.loadProcesses, log });
      const subject = { ...s, server, meter, root: server.child.pid };
      subjects.push(subject);
      const first = options.prewarm || options.warmup;
      if (first) await meter.window(closed(connections, paths, 0, first), { label: `${s.key} warm-up` });
      subject.meanBodyBytes = await meanBodyBytes(server.url, paths);
      freeze(subject.root);
    }
  } catch (err) {
    await stopSubjects(subjects);
    throw err;
  }
  return subjects;
}

async function stopSubjects(subjects) {
  for (const s of subjects) {
    thaw(s.root);
    s.meter.close();
    await s.server.stop();
    live.delete(s.server);
  }
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
  if (options.soak) return soak(options);
  const { paths, config } = options;
  const anchor = options.tiers.includes(config.baseline) ? config.baseline : options.tiers[0];
  const log = (line, partial) => process.stderr.write(`\r\x1b[K${line}${partial ? '' : '\n'}`);
  const results = [];
  const crossLine = [];
  const rounds = [];
  let baselineMax;
  for (const workers of options.workers) {
    const first = workers === options.workers[0];
    const subjects = await startSubjects(workers, first, anchor, options, log);
    try {
      const visits = await runRounds(subjects, {
        anchor,
        rounds: options.rounds,
        measure: (s, round) =>
          visit(s.meter, {
            label: `round ${round + 1}/${options.rounds} ${s.key} w=${workers}`,
            connections: options.connections,
            paths,
            warmup: options.warmup,
            duration: options.duration,
            // The per-call cost does not depend on the worker count, and
            // varies less between visits than the closed-loop figures do.
            oneConnection: first && measuresOneConnection(round, options.rounds, options.oneConnection.rounds) && options.oneConnection,
            eventLoop: Boolean(s.entry.eventLoop),
          }),
      });
      const summary = summarize(visits, anchor, options.rounds);
      rounds.push({ workers, anchor, rounds: summary.rounds });
      for (const s of subjects) {
        const { main: figures, single, runs, ratios } = summary.subjects.get(s.key);
        const result = {
          tier: s.tier,
          workers,
          connections: options.connections,
          ...figures,
          meanBodyBytes: s.meanBodyBytes,
          ...(single && { oneConnectionLatencyMs: single.latencyMs, oneConnection: single }),
          reference: Boolean(s.entry.reference),
          ratios,
          visits: runs.length,
          runs,
        };
        const flagged = result.errors || result.non2xx ? ' (ERRORS)' : '';
        log(`${s.key} w=${workers}: ${result.requestsPerSecond.toFixed(0)} req/s, x${ratios.requestsPerSecond.median.toFixed(3)} of ${anchor} (${ratios.requestsPerSecond.min.toFixed(3)}-${ratios.requestsPerSecond.max.toFixed(3)})${flagged}`);
        if (s.line) crossLine.push({ ...result, line: s.line, v8: describeNode(s.node).v8 });
        else results.push(result);
      }
      if (first) baselineMax = results.find((r) => r.tier === config.baseline)?.requestsPerSecond;
      if (first && options.curves) {
        for (const s of subjects.filter((x) => !x.line)) {
          const result = results.find((r) => r.tier === s.tier && r.workers === workers);
          thaw(s.root);
          try {
            Object.assign(result, await curvesOf(s.meter, {
              tier: s.tier,
              config,
              curves: options.curves,
              connections: options.connections,
              paths,
              clientCpus: options.pin?.client,
              main: result,
              single: result.oneConnection,
              baselineMax,
            }));
          } finally {
            freeze(s.root);
          }
          log(`${s.key}: curves done`);
        }
      }
    } finally {
      await stopSubjects(subjects);
    }
  }
  const settings = {
    ...commonSettings(options),
    anchor,
    rounds: options.rounds,
    oneConnection: options.oneConnection,
    oneConnectionSeconds: options.oneConnection.duration,
    loadProcesses: options.loadProcesses,
    pin: options.pin,
    lines: [describeNode(options.node).node, ...options.lines.map((exe) => describeNode(exe).node)],
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
  writeReport(options.out, { results, crossLine, rounds, settings, machine: describeMachine(options.node) }, report.render, options.readme);
  // The rounds must be clean; the curves may show a tier refusing load (503) at 1000 connections.
  if ([...results, ...crossLine].some((r) => r.errors || r.non2xx)) process.exitCode = 1;
}

main().catch((err) => {
  console.error(`bench: ${err.stack}`);
  process.exit(1);
});
