#!/usr/bin/env node
'use strict';

// The main job: every tier under the same autocannon load, one report.
// `node bench/run.js --help` for the options; `make bench` builds first.
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { benchTier } = require('./lib/measure');
const report = require('./lib/report');
const soakReport = require('./lib/soak-report');
const { soakTier, parseDuration } = require('./lib/soak');
const { ROOT } = require('./lib/launch');
const { loadConfig, tierOf, DEFAULT_CONFIG } = require('./lib/config');

const CURVE_CONNECTIONS = [1, 10, 100, 1000];
const RATE_FRACTIONS = [0.25, 0.5, 0.9];

const USAGE = `Usage: node bench/run.js [options]

  --config FILE       the service's tiers and request mix (default: bench/config/qr.js,
                      the QR tiers: ${loadConfig().tiers.map((t) => t.name).join(',')})
  --tiers LIST        comma-separated (default: every tier of the configuration)
  --workers LIST      node-server worker counts (default: 1,2)
  --connections N     concurrent connections (default: 100)
  --duration S        measured seconds per run (default: 20)
  --warmup S          warm-up seconds on the same connections (default: 3)
  --out DIR           where report.md, results.json, chart.svg go (default: bench/out)
  --repeat N          main runs per configuration; reports the median and the spread (default: 1)
  --load-processes N  autocannon processes sharing the connections (default: 1)
  --pin               load generator, sampler and wrk on CPU 0, servers on the others
                      (taskset, every thread); refused without a CPU per worker left
  --no-curves         only the main table: no cost curves, fixed-rate runs or wrk
  --curve-duration S  measured seconds per curve point and fixed rate (default: 5)
  --quick             a few seconds per run, worker count 1, fewer curve points (for CI)
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
      connections: { type: 'string', default: '100' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      out: { type: 'string' },
      repeat: { type: 'string', default: '1' },
      'load-processes': { type: 'string', default: '1' },
      pin: { type: 'boolean', default: false },
      'no-curves': { type: 'boolean', default: false },
      'curve-duration': { type: 'string' },
      quick: { type: 'boolean', default: false },
      soak: { type: 'string' },
      'soak-warmup': { type: 'string', default: '60' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return null;
  const soak = values.soak === undefined ? null : parseDuration(values.soak);
  const config = loadConfig(values.config);
  const defaultTiers = soak ? (config.soakTiers ?? config.tiers.map((t) => t.name)) : config.tiers.map((t) => t.name);
  const tiers = values.tiers ? values.tiers.split(',').filter(Boolean) : defaultTiers;
  for (const t of tiers) tierOf(config, t);
  const { requests } = config;
  const lengths = requests.ofLength ? requests.lengths ?? [] : [];
  const quick = values.quick;
  const workers = (values.workers ?? (quick ? '1' : '1,2')).split(',').map(Number);
  const curveDuration = Number(values['curve-duration'] ?? (quick ? 1 : 5));
  return {
    tiers,
    workers,
    connections: Number(values.connections),
    duration: soak ?? Number(values.duration ?? (values.quick ? 2 : 20)),
    warmup: soak ? parseDuration(values['soak-warmup']) : Number(values.warmup ?? (values.quick ? 1 : 3)),
    soak: soak !== null,
    oneConnectionSeconds: values.quick ? 1 : 5,
    config,
    paths: requests.paths,
    out: path.resolve(values.out ?? path.join(ROOT, soak ? 'bench/out/soak' : 'bench/out')),
    repeat: Number(values.repeat),
    loadProcesses: Number(values['load-processes']),
    pin: values.pin ? pin(Math.max(...workers)) : null,
    curves: !soak && !values['no-curves'] && {
      connections: quick ? [1, 10, Number(values.connections)] : CURVE_CONNECTIONS,
      lengths: (quick && lengths.length > 2 ? [lengths[0], lengths.at(-1)] : lengths).map((length) => ({ length, paths: requests.ofLength(length) })),
      rateFractions: quick ? [0.5] : RATE_FRACTIONS,
      curveWarmup: quick ? 0 : 1,
      curveDuration,
      wrkSeconds: quick ? 1 : 10,
    },
  };
}

function machine() {
  const tryRun = (cmd, args) => {
    try {
      return execFileSync(cmd, args, { encoding: 'utf8' }).trim();
    } catch {
      return `${cmd}: not found`;
    }
  };
  return {
    cpu: os.cpus()[0]?.model ?? 'unknown CPU',
    cores: os.availableParallelism(),
    memoryGB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    autocannon: require('autocannon/package.json').version,
    // `wrk -v` prints its version and exits 1.
    wrk: (spawnSync('wrk', ['-v'], { encoding: 'utf8' }).stdout ?? 'wrk: not found').split(' [')[0],
    rustc: tryRun('rustc', ['--version']),
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
    command: `node bench/run.js ${process.argv.slice(2).join(' ')}`.trim(),
    connections: options.connections,
    warmup: options.warmup,
    duration: options.duration,
    config: path.relative(ROOT, options.config.file),
    title: options.config.title,
    baseline: options.config.baseline,
    requests: { description: options.config.requests.description, paths: options.paths.length },
    references: Object.fromEntries(options.config.tiers.filter((t) => t.reference).map((t) => [t.name, t.reference])),
  };
}

/** Writes results.json and every file the report module renders from it. */
function writeReport(out, report, render) {
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, 'results.json'), `${JSON.stringify(report, null, 2)}\n`);
  const files = render(report);
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(out, name), text);
  console.log(files['report.md']);
  console.log(`written to ${out}/: results.json, ${Object.keys(files).join(', ')}`);
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
  writeReport(options.out, { results, settings: commonSettings(options), machine: machine() }, (r) => ({
    'report.md': soakReport.markdown(r),
    'chart.svg': soakReport.svg(r.results),
  }));
  if (results.some((r) => !r.pass)) process.exitCode = 1;
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
  if (options.soak) return soak(options);
  const pinning = options.pin;
  const { paths, config } = options;
  const log = (line, partial) => process.stderr.write(`\r\x1b[K${line}${partial ? '' : '\n'}`);
  const results = [];
  let baselineMax;
  for (const workers of options.workers) {
    for (const tier of options.tiers) {
      const runs = [];
      let curves = null;
      for (let i = 0; i < options.repeat; i++) {
        const label = `${tier} w=${workers}${options.repeat > 1 ? ` #${i + 1}` : ''}`;
        // Curves, fixed rates and wrk once per tier, at the first worker count.
        const withCurves = options.curves && i === 0 && workers === options.workers[0];
        const run = await benchTier(tier, {
          ...options,
          workers,
          paths,
          serverCpus: pinning?.server,
          clientCpus: pinning?.client,
          curves: withCurves && { ...options.curves, baselineMax },
          log,
        });
        log(`${label}: ${run.requestsPerSecond.toFixed(0)} req/s, p99 ${run.latencyMs.p99.toFixed(1)} ms${run.errors || run.non2xx ? ' (ERRORS)' : ''}`);
        const { crossCheck, connectionsCurve, lengthCurve, fixedRate, oneConnection, ...main } = run;
        if (withCurves) curves = { crossCheck, connectionsCurve, lengthCurve, fixedRate };
        runs.push(main);
      }
      const median = [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(runs.length / 2)];
      if (tier === config.baseline && workers === options.workers[0]) baselineMax = median.requestsPerSecond;
      results.push({
        ...median,
        reference: Boolean(tierOf(config, tier).reference),
        ...curves,
        repeats: runs.length,
        spread: { min: Math.min(...runs.map((r) => r.requestsPerSecond)), max: Math.max(...runs.map((r) => r.requestsPerSecond)) },
        runs,
      });
    }
  }
  const settings = {
    ...commonSettings(options),
    oneConnectionSeconds: options.oneConnectionSeconds,
    repeat: options.repeat,
    loadProcesses: options.loadProcesses,
    pin: pinning,
    curves: options.curves && {
      connections: options.curves.connections,
      lengths: options.curves.lengths.map((l) => l.length),
      rateFractions: options.curves.rateFractions,
      warmup: options.curves.curveWarmup,
      duration: options.curves.curveDuration,
      wrkSeconds: options.curves.wrkSeconds,
    },
  };
  writeReport(options.out, { results, settings, machine: machine() }, report.render);
  // The main table must be clean; the curves may show a tier refusing load (503) at 1000 connections.
  if (results.some((r) => r.errors || r.non2xx)) process.exitCode = 1;
}

main().catch((err) => {
  console.error(`bench: ${err.stack}`);
  process.exit(1);
});
