#!/usr/bin/env node
'use strict';

// The main job: every tier under the same autocannon load, one report.
// `node bench/run.js --help` for the options; `make bench` builds first.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { measureTier } = require('./lib/measure');
const { markdown, svg } = require('./lib/report');
const soakReport = require('./lib/soak-report');
const { soakTier, parseDuration } = require('./lib/soak');
const { startTier, ROOT } = require('./lib/launch');

const ALL_TIERS = ['js', 'cli', 'cli-pool', 'wasm', 'wasm-raw', 'napi', 'napi-async', 'axum-proxy', 'axum', 'axum-nginx'];
// The tiers that hold state across requests in a long-lived process or child.
const SOAK_TIERS = ['cli-pool', 'wasm-raw', 'napi-async'];

const USAGE = `Usage: node bench/run.js [options]

  --tiers LIST        comma-separated (default: ${ALL_TIERS.join(',')})
  --workers LIST      node-server worker counts (default: 1,2)
  --connections N     concurrent connections (default: 100)
  --duration S        measured seconds per run (default: 20)
  --warmup S          warm-up seconds on the same connections (default: 3)
  --texts FILE        JSON file with a "urls" array (default: test/fixtures/texts.json)
  --out DIR           where report.md, results.json, chart.svg go (default: bench/out)
  --repeat N          runs per configuration; reports the median and the spread (default: 1)
  --pin               load generator on CPU 0, servers on the other CPUs (taskset)
  --no-cross-check    skip the wrk cross-check on axum
  --quick             a few seconds per tier, worker count 1 (for CI)
  --soak DURATION     soak mode instead: each tier (default: ${SOAK_TIERS.join(',')}) under
                      load for DURATION (e.g. 10m); passes when RSS grows < 5%
                      (default --out bench/out/soak)
  --soak-warmup S     warm-up before the soak's first RSS sample (default: 60)`;

function parseOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      tiers: { type: 'string' },
      workers: { type: 'string' },
      connections: { type: 'string', default: '100' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      texts: { type: 'string', default: path.join(ROOT, 'test/fixtures/texts.json') },
      out: { type: 'string' },
      repeat: { type: 'string', default: '1' },
      pin: { type: 'boolean', default: false },
      'no-cross-check': { type: 'boolean', default: false },
      quick: { type: 'boolean', default: false },
      soak: { type: 'string' },
      'soak-warmup': { type: 'string', default: '60' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return null;
  const soak = values.soak === undefined ? null : parseDuration(values.soak);
  const tiers = (values.tiers ?? (soak ? SOAK_TIERS : ALL_TIERS).join(',')).split(',').filter(Boolean);
  for (const t of tiers) if (!ALL_TIERS.includes(t)) throw new Error(`unknown tier "${t}"`);
  const texts = JSON.parse(fs.readFileSync(values.texts, 'utf8')).urls;
  if (!Array.isArray(texts) || texts.length === 0) throw new Error(`${values.texts} has no "urls" array`);
  return {
    tiers,
    workers: (values.workers ?? (values.quick ? '1' : '1,2')).split(',').map(Number),
    connections: Number(values.connections),
    duration: soak ?? Number(values.duration ?? (values.quick ? 3 : 20)),
    warmup: soak ? parseDuration(values['soak-warmup']) : Number(values.warmup ?? (values.quick ? 1 : 3)),
    soak: soak !== null,
    oneConnectionSeconds: values.quick ? 1 : 5,
    texts,
    out: path.resolve(values.out ?? path.join(ROOT, soak ? 'bench/out/soak' : 'bench/out')),
    repeat: Number(values.repeat),
    pin: values.pin,
    crossCheck: !values['no-cross-check'],
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
    rustc: tryRun('rustc', ['--version']),
  };
}

/** Pins this process (and so autocannon) to CPU 0; servers get the rest. */
function pin() {
  const cores = os.availableParallelism();
  if (cores < 2) throw new Error('--pin needs at least 2 CPUs');
  execFileSync('taskset', ['-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
  return { client: '0', server: `1-${cores - 1}` };
}

/** wrk against qr_server at the same connections: is autocannon the limit? */
async function crossCheck(options, pinning, autocannonRps) {
  const server = await startTier('axum', { cpus: pinning?.server });
  try {
    const lua = path.join(os.tmpdir(), `qr-bench-${process.pid}.lua`);
    const paths = options.texts.map((t) => `/qrcode?text=${encodeURIComponent(t)}`);
    fs.writeFileSync(lua, `local paths = ${JSON.stringify(paths).replace('[', '{').replace(/]$/, '}')}\nlocal i = 0\nrequest = function()\n  i = i % #paths + 1\n  return wrk.format("GET", paths[i])\nend\n`);
    const seconds = Math.max(2, Math.min(options.duration, 10));
    const args = ['-t', '1', '-c', String(options.connections), '-d', `${seconds}s`, '-s', lua, server.url];
    const out = execFileSync(pinning ? 'taskset' : 'wrk', pinning ? ['-c', pinning.client, 'wrk', ...args] : args, { encoding: 'utf8' });
    fs.rmSync(lua, { force: true });
    const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
    return { wrk: rps, autocannon: autocannonRps, connections: options.connections };
  } finally {
    await server.stop();
  }
}

/** What every report says about how it was made. */
function commonSettings(options) {
  return {
    command: `node bench/run.js ${process.argv.slice(2).join(' ')}`.trim(),
    connections: options.connections,
    warmup: options.warmup,
    duration: options.duration,
    texts: options.texts,
  };
}

function writeReport(out, report, { markdown, svg }) {
  fs.mkdirSync(out, { recursive: true });
  const md = markdown(report);
  fs.writeFileSync(path.join(out, 'report.md'), md);
  fs.writeFileSync(path.join(out, 'results.json'), `${JSON.stringify(report, null, 2)}\n`);
  fs.writeFileSync(path.join(out, 'chart.svg'), svg(report.results));
  console.log(md);
  console.log(`written to ${out}/report.md, results.json, chart.svg`);
}

async function soak(options) {
  const paths = options.texts.map((t) => `/qrcode?text=${encodeURIComponent(t)}`);
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
  writeReport(options.out, { results, settings: commonSettings(options), machine: machine() }, soakReport);
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
  const pinning = options.pin ? pin() : null;
  const paths = options.texts.map((t) => `/qrcode?text=${encodeURIComponent(t)}`);
  const results = [];
  for (const workers of options.workers) {
    for (const tier of options.tiers) {
      const runs = [];
      for (let i = 0; i < options.repeat; i++) {
        const label = `${tier} w=${workers}${options.repeat > 1 ? ` #${i + 1}` : ''}`;
        const run = await measureTier(tier, {
          ...options,
          workers,
          paths,
          serverCpus: pinning?.server,
          onProgress: ({ second, total, rps }) =>
            second <= total && process.stderr.write(`\r\x1b[K${label}: ${second}/${total} s, ${rps} req/s`),
        });
        process.stderr.write(`\r\x1b[K${label}: ${run.requestsPerSecond.toFixed(0)} req/s, p99 ${run.latencyMs.p99.toFixed(1)} ms${run.errors || run.non2xx ? ' (ERRORS)' : ''}\n`);
        runs.push(run);
      }
      runs.sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
      const median = runs[Math.floor(runs.length / 2)];
      results.push({
        ...median,
        repeats: runs.length,
        spread: { min: runs[0].requestsPerSecond, max: runs[runs.length - 1].requestsPerSecond },
        runs,
      });
    }
  }
  const axum = results.find((r) => r.tier === 'axum' && r.workers === options.workers[0]);
  const settings = {
    ...commonSettings(options),
    oneConnectionSeconds: options.oneConnectionSeconds,
    repeat: options.repeat,
    pin: pinning,
    crossCheck: options.crossCheck && axum ? await crossCheck(options, pinning, axum.requestsPerSecond) : null,
  };
  writeReport(options.out, { results, settings, machine: machine() }, { markdown, svg });
  if (results.some((r) => r.errors || r.non2xx)) process.exitCode = 1;
}

main().catch((err) => {
  console.error(`bench: ${err.stack}`);
  process.exit(1);
});
