#!/usr/bin/env node
'use strict';

// tier-bench-profile: before anyone writes Rust, what a port of one function
// can buy. Profiles the running service at saturation, measures the function
// (calls, sizes, its CPU per request), measures each rung's boundary with a
// prebuilt identity (calibrate.js), and prints a verdict. No Rust toolchain.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { createMeter, closed } = require('./lib/measure');
const { loadConfig } = require('./lib/tier-config');
const { tierCommand } = require('./lib/launch');
const { median } = require('./lib/stats');
const { startService } = require('./lib/profile/service');
const { attribute } = require('./lib/profile/attribute');
const { binds } = require('./lib/profile/rewrite');
const { predict, verdict } = require('./lib/profile/predict');
const { renderReport } = require('./lib/profile/report');

const WARMUP_S = 1;
const DURATION_S = 3;
const ROUNDS = 3;
const SAMPLING_US = 500;
const SIZES_CALIBRATED = 5;
const FREE = ['free-1', 'free-2', 'free-3'];

const USAGE = `Usage: tier-bench-profile [options] -- node SERVER.js [ARGS...]
       tier-bench-profile --config FILE --tier NAME [options]

Starts the service (it must print its URL, or its port, when ready), drives
it at saturation with your requests and V8's CPU profiler on, ranks the
functions by their share of CPU per request, then measures one function
(--function, or the top candidate): its calls and sizes, and the service's CPU
per request with the function answering from memory, as if it cost nothing.
Each rung's boundary is measured with those sizes through a prebuilt identity
(no Rust toolchain needed). Prints the verdict; report.md and profile.json in --out.

  --function FILE#NAME  the function to port (default: the top candidate of the profile)
  --paths FILE          the request paths: a JSON array, or one per line
  --config FILE         or the paths of a tier-bench configuration (requests.paths)
  --tier NAME           with --config: the service is that tier's command, not one after --
  --ready REGEX         the line that says it is ready; group 1 is its URL or port
                        (default: "listening on (http://...)")
  --connections N       concurrent connections (default: 100)
  --rounds N            alternating windows of the service as it is and with the
                        function free (default: ${ROUNDS})
  --duration S          seconds measured per window, after ${WARMUP_S} s of warm-up (default: ${DURATION_S})
  --quick               one short round and one short calibration pass (for CI)
  --render DIR          measure nothing: DIR/profile.json's prediction and report again
  --out DIR             where report.md, profile.json and cpu.cpuprofile go (default: profile-out)`;

function parseOptions(argv) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      function: { type: 'string' },
      paths: { type: 'string' },
      config: { type: 'string' },
      tier: { type: 'string' },
      ready: { type: 'string' },
      connections: { type: 'string', default: '100' },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      quick: { type: 'boolean', default: false },
      out: { type: 'string', default: 'profile-out' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return null;
  const config = values.config ? loadConfig(values.config) : null;
  let command = positionals;
  if (values.tier) {
    if (!config) throw new Error("--tier needs --config: the tier's command comes from it");
    const [exe, args] = tierCommand(values.tier, { config });
    command = [exe, ...args];
  }
  if (!command.length) throw new Error('no service command: tier-bench-profile [options] -- node server.js');
  let paths;
  if (values.paths) {
    const text = fs.readFileSync(values.paths, 'utf8');
    paths = text.trimStart().startsWith('[')
      ? JSON.parse(text)
      : text
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean);
  } else if (config) paths = config.requests.paths;
  else throw new Error('which requests? --paths FILE or --config FILE');
  let target = null;
  if (values.function) {
    const match = /^(.+)#([A-Za-z_$][\w$]*)$/.exec(values.function);
    if (!match) throw new Error(`--function ${values.function}: FILE#NAME, as in src/render.js#render`);
    const file = path.resolve(match[1]);
    if (!fs.existsSync(file)) throw new Error(`--function ${values.function}: ${match[1]} not found`);
    target = { file, name: match[2] };
  }
  return {
    command,
    paths,
    target,
    ready: values.ready ? new RegExp(values.ready) : undefined,
    connections: Number(values.connections),
    rounds: Number(values.rounds ?? (values.quick ? 1 : ROUNDS)),
    duration: Number(values.duration ?? (values.quick ? 1 : DURATION_S)),
    // Quick: one short pass of each rung's identity, enough to check the pipeline, not to decide.
    calibration: values.quick ? { passes: 1, seconds: 0.5, warmSeconds: 0.1 } : {},
    out: path.resolve(values.out),
  };
}

const log = (line) => process.stderr.write(`${line}\n`);

/** One closed-loop window's figures per request. */
function perRequest(f) {
  return {
    rps: f.requestsPerSecond,
    cpuUs: f.serverCpuUsPerRequest,
    mainUs: (f.busiestThreadCores * 1e6) / f.requestsPerSecond,
    generatorUs: (f.loadGeneratorCpuCores * 1e6) / f.requestsPerSecond,
    mainCores: f.busiestThreadCores,
    non2xx: f.non2xx,
  };
}
const medianOf = (windows) =>
  Object.fromEntries(Object.keys(windows[0]).map((k) => [k, median(windows.map((w) => w[k]))]));

/** Up to `n` (input, output) byte pairs spread over what the function saw. */
function sizesOf(samples, n = SIZES_CALIBRATED) {
  const sorted = [...samples].sort((a, b) => a.input - b.input || a.output - b.output);
  if (sorted.length <= n) return sorted;
  return Array.from({ length: n }, (_, i) => sorted[Math.floor(((i + 0.5) / n) * sorted.length)]);
}

/** The service's own function with the largest inclusive share that the hook can wrap. */
function topCandidate(functions, root) {
  for (const f of functions) {
    if (f.name === '(anonymous)' || !/^[A-Za-z_$][\w$]*$/.test(f.name)) continue;
    const file = path.resolve(root, f.file);
    const source = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    if (binds(source, f.name)) return { file, name: f.name };
  }
  return null;
}

async function profileWindow(service, meter, options, file) {
  const job = closed(options.connections, options.paths, WARMUP_S, options.duration);
  await service.call('startProfile', { intervalUs: SAMPLING_US });
  const figures = await meter.window(job, { label: 'profile' });
  await service.call('stopProfile', { file });
  return { figures: perRequest(figures), attribution: attribute(JSON.parse(fs.readFileSync(file, 'utf8'))) };
}

async function run(options) {
  fs.mkdirSync(options.out, { recursive: true });
  const profileFile = path.join(options.out, 'cpu.cpuprofile');
  let target = options.target;
  const start = (t) => startService(options.command, { target: t, ready: options.ready });
  let profiled = null;
  if (!target) {
    log('profile: the service as it is, to find the function');
    const service = await start(null);
    const meter = createMeter({ child: service.child, url: service.url }, { entry: {}, workers: 1 });
    try {
      profiled = await profileWindow(service, meter, options, profileFile);
    } finally {
      meter.close();
      await service.stop();
    }
    target = topCandidate(profiled.attribution.functions, process.cwd());
    if (!target) throw new Error('no function of the service itself to measure: name one with --function FILE#NAME');
    log(`profile: the top candidate is ${path.relative(process.cwd(), target.file)}#${target.name}`);
  }
  // The service as it is, and the function free in three launches of their
  // own: launches of the same server can settle into paces far apart on a
  // shared VM (a third apart here), and the fastest one is the ceiling. Each is warmed under
  // load as it is (the free ones learn their answers then): a server that
  // never saw load runs its first windows with a heap and code not yet
  // sized for it, and costs more per request in them.
  const services = { js: await start(target) };
  const meters = {};
  try {
    for (const key of FREE) services[key] = await start(target);
    for (const [key, s] of Object.entries(services)) {
      meters[key] = createMeter({ child: s.child, url: s.url }, { entry: {}, workers: 1 });
    }
    const job = closed(options.connections, options.paths, WARMUP_S, options.duration);
    for (const [key, meter] of Object.entries(meters)) await meter.window(job, { label: `warm-up ${key}` });
    const first = await services.js.call('stats');
    if (first.unwrappable) throw new Error(first.unwrappable);
    if (!first.wrapped) {
      throw new Error(`${target.file} was never loaded, or binds no ${target.name}: is it the service's?`);
    }
    if (!first.calls) throw new Error(`${target.name} was never called by these requests`);
    const callsPerRequest = await countCalls(services.js, options.paths);
    for (const key of FREE) await services[key].call('mode', { mode: 'free' });
    const windows = Object.fromEntries(Object.keys(services).map((k) => [k, []]));
    // The order rotates each round: drift over the run weighs on each alike.
    const order = Object.keys(services);
    for (let r = 0; r < options.rounds; r++) {
      for (const key of [...order.slice(r % order.length), ...order.slice(0, r % order.length)]) {
        const f = await meters[key].window(job, { label: `${key} ${r + 1}` });
        windows[key].push(perRequest(f));
        const what = key === 'js' ? 'as it is' : `function free (${key})`;
        const figures = `${f.requestsPerSecond.toFixed(0)} req/s, ${f.serverCpuUsPerRequest.toFixed(1)} us CPU/req`;
        log(`profile: round ${r + 1}, ${what}: ${figures}`);
      }
    }
    if (!profiled) profiled = await profileWindow(services.js, meters.js, options, profileFile);
    const launches = FREE.map((key) => medianOf(windows[key]));
    const free = launches.reduce((a, b) => (b.cpuUs < a.cpuUs ? b : a));
    let hits = 0;
    let misses = 0;
    for (const key of FREE) {
      const stats = await services[key].call('stats');
      hits += stats.hits;
      misses += stats.misses;
    }
    const measured = {
      js: medianOf(windows.js),
      free,
      freeLaunches: launches,
      callsPerRequest,
      freeHitRate: hits / (hits + misses || 1),
      sizes: sizesOf((await services.js.call('stats')).samples),
      cores: os.availableParallelism(),
      windows,
    };
    return { target, profiled, measured };
  } finally {
    for (const m of Object.values(meters)) m.close();
    await Promise.all(Object.values(services).map((s) => s.stop()));
  }
}

/** Calls of the function per request: each path once, one at a time. */
async function countCalls(service, paths) {
  const sent = paths.slice(0, 200);
  const before = (await service.call('stats')).calls;
  for (const p of sent) await (await fetch(service.url + p)).arrayBuffer();
  return ((await service.call('stats')).calls - before) / sent.length;
}

/** The prediction and verdict from what was measured: the same for a fresh run and a --render. */
function conclude(result) {
  const boundaries = Object.fromEntries(
    Object.entries(result.calibration.tiers)
      .filter(([name, t]) => name !== 'js' && !t.skipped)
      .map(([name, t]) => [name, { mainUs: t.boundaryMainUs, totalUs: t.boundaryTotalUs }]),
  );
  const { js, free, callsPerRequest, cores } = result.measured;
  const prediction = predict(js, free, { callsPerRequest, cores, boundaries });
  const lines = verdict(prediction, { name: `${result.function.file}#${result.function.name}` });
  return { ...result, prediction, verdict: lines };
}

function write(out, result) {
  fs.writeFileSync(path.join(out, 'profile.json'), `${JSON.stringify(result, null, 2)}\n`);
  fs.writeFileSync(path.join(out, 'report.md'), renderReport(result));
  console.log(result.verdict.join('\n'));
}

async function main() {
  const argv = process.argv.slice(2);
  if (argv[0] === '--render') {
    // Measure nothing: a profile.json's prediction and report again, with this version's model.
    const out = path.resolve(argv[1] ?? 'profile-out');
    const result = JSON.parse(fs.readFileSync(path.join(out, 'profile.json'), 'utf8'));
    return write(out, { ...conclude(result), rendered: new Date().toISOString() });
  }
  const options = parseOptions(argv);
  if (!options) return console.log(USAGE);
  const { target, profiled, measured } = await run(options);
  log("profile: each rung's boundary, with these sizes, through the prebuilt identity");
  // Loaded here: the identity's binaries are looked up only when needed.
  const { calibrate } = require('./lib/calibrate');
  const calibration = await calibrate({ sizes: measured.sizes, ...options.calibration });
  const result = conclude({
    // As a reader would type it: this node's path and the directory it ran in say nothing about the service.
    command: options.command.map((word) => {
      if (word === process.execPath) return 'node';
      const inside = path.isAbsolute(word) && word.startsWith(`${process.cwd()}${path.sep}`);
      return inside ? path.relative(process.cwd(), word) : word;
    }),
    function: { file: path.relative(process.cwd(), target.file), name: target.name },
    // From this process's start: the time a team waits for the verdict.
    seconds: process.uptime(),
    finished: new Date().toISOString(),
    node: process.version,
    measured,
    attribution: profiled.attribution,
    calibration,
  });
  write(options.out, result);
  const report = path.relative(process.cwd(), path.join(options.out, 'report.md'));
  console.log(`\n${report} (${result.seconds.toFixed(0)} s)`);
}

if (require.main === module) {
  main().catch((err) => {
    console.error(`tier-bench-profile: ${err.message}`);
    process.exitCode = 1;
  });
}

module.exports = { parseOptions, sizesOf, topCandidate, run };
