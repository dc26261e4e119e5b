'use strict';

// The cost of each tier's boundary on this machine, for the sizes a function
// sees: an identity function (bench/calibration/identity.js, and its Rust
// port) called through the tiers create-rust-ladder generates, prebuilt in
// this package, so no Rust toolchain is needed. Each tier runs in a fresh
// Node process (calibrate-child.js) at a concurrency that keeps it busy;
// passes alternate the tiers' order and each figure is the median of its
// passes. A tier's boundary is its cost per call net of the `js` tier's, the
// same identity in JavaScript on the same event-loop adapter: what a port
// adds over calling the JavaScript function in place.
const { execFile } = require('node:child_process');
const path = require('node:path');
const { median } = require('./stats');

const CALIBRATION = path.join(__dirname, '../calibration');
const TIERS_MODULE = path.join(CALIBRATION, 'ladder/js/tiers.js');
const IDENTITY_MODULE = path.join(CALIBRATION, 'identity.js');
const PREBUILT = path.join(CALIBRATION, 'ladder/prebuilt.json');
const RPC_SERVER = path.join(CALIBRATION, 'ladder/target/release/identity_rpc');
const CHILD = path.join(__dirname, 'calibrate-child.js');
const { MAX_INPUT_BYTES, MAX_OUTPUT_BYTES } = require(IDENTITY_MODULE);

// The ladder's seven tiers (its js/tiers.js), in its order.
const LADDER_TIERS = ['js', 'cli', 'cli-pool', 'wasm', 'napi', 'ffi', 'napi-async'];
// Then the hop to a Rust service over a Unix socket (calibration/rpc.rs), which it does not generate.
const TIERS = [...LADDER_TIERS, 'rpc'];
// Calls in flight: one keeps an event-loop tier busy; a pool or a process
// per call needs many to keep its threads or processes busy.
const CONCURRENCY = { js: 1, wasm: 1, napi: 1, ffi: 1, cli: 8, 'cli-pool': 64, 'napi-async': 64, rpc: 64 };
// A child that takes this much longer than its run is stuck.
const CHILD_SLACK_MS = 30_000;

/**
 * The size pairs as the identity can take them, each with a `note` where it
 * differs from what was asked: an input is at least its head ("1500\n"), and
 * neither side goes past the ladder's bound (1 MiB).
 */
function checkedSizes(sizes) {
  if (!Array.isArray(sizes) || sizes.length === 0) {
    throw new Error('calibrate: sizes must be a non-empty array of { input, output }');
  }
  return sizes.map((s) => {
    for (const key of ['input', 'output']) {
      if (!Number.isSafeInteger(s?.[key]) || s[key] < 0) {
        throw new Error(`calibrate: sizes: ${key} must be a whole number of bytes, got ${JSON.stringify(s?.[key])}`);
      }
    }
    const output = Math.min(s.output, MAX_OUTPUT_BYTES);
    const input = Math.min(Math.max(s.input, `${output}\n`.length), MAX_INPUT_BYTES);
    if (input === s.input && output === s.output) return { input, output };
    const note =
      s.input > MAX_INPUT_BYTES || s.output > MAX_OUTPUT_BYTES
        ? `asked ${s.input}/${s.output}: the identity's bound is ${MAX_INPUT_BYTES} bytes each way`
        : `asked ${s.input}/${s.output}: an input holds at least the output's length and a newline`;
    return { input, output, note };
  });
}

/** Runs one tier in a fresh `node`; resolves to the child's JSON line. */
function runChild(node, job) {
  const env = { ...process.env };
  // What would point the ladder's loaders elsewhere, or load anything else into the child.
  for (const key of ['CARGO_TARGET_DIR', 'NAPI_RS_NATIVE_LIBRARY_PATH', 'NODE_OPTIONS']) delete env[key];
  const timeout = (job.seconds + job.warmSeconds) * 1000 + CHILD_SLACK_MS;
  // node:ffi warns once that it is experimental; the child's stderr is for its errors.
  const args = ['--disable-warning=ExperimentalWarning', CHILD, JSON.stringify(job)];
  return new Promise((resolve, reject) => {
    execFile(node, args, { env, timeout, killSignal: 'SIGKILL', maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      const why = stderr.trim().split('\n').at(-1);
      if (err) {
        const what = err.killed ? `stopped after ${timeout} ms` : why || err.message.split('\n')[0];
        return reject(new Error(`calibrate: tier ${job.tier}: ${what}`));
      }
      try {
        resolve(JSON.parse(stdout));
      } catch {
        reject(new Error(`calibrate: tier ${job.tier}: no result from ${node}${why ? `: ${why}` : ''}`));
      }
    });
  });
}

/**
 * @param {{ sizes: { input: number, output: number }[], tiers?: string[], seconds?: number,
 *   warmSeconds?: number, passes?: number, node?: string, concurrency?: Record<string, number>,
 *   log?: (line: string) => void }} options
 *   sizes: the input and output bytes the function saw, in rotation; tiers: default all eight
 *   (`js`, the baseline, always runs); seconds: measured per tier and pass; passes: of every tier,
 *   alternating their order; node: the Node that runs the tiers; log: a line per tier and pass.
 *   Called with no options, it says that sizes are missing.
 */
async function calibrate(
  {
    sizes,
    tiers = TIERS,
    seconds = 1.5,
    warmSeconds = 0.3,
    passes = 3,
    node = process.execPath,
    concurrency = {},
    log = () => {},
  } = { sizes: undefined },
) {
  const used = checkedSizes(sizes);
  const unknown = tiers.filter((t) => !TIERS.includes(t));
  if (unknown.length) throw new Error(`calibrate: unknown tier ${unknown.join(', ')} (one of: ${TIERS.join(', ')})`);
  if (!(seconds > 0) || !(warmSeconds >= 0) || !(Number.isInteger(passes) && passes > 0)) {
    throw new Error('calibrate: seconds must be > 0, warmSeconds >= 0, passes a whole number > 0');
  }
  const names = TIERS.filter((t) => t === 'js' || tiers.includes(t));
  const samples = Object.fromEntries(names.map((t) => [t, []]));
  const skipped = {};
  let version;
  for (let pass = 0; pass < passes; pass++) {
    // Alternate the order: a machine that drifts during the run favours no tier.
    for (const tier of pass % 2 ? [...names].reverse() : names) {
      if (skipped[tier]) continue;
      const c = concurrency[tier] ?? CONCURRENCY[tier];
      const out = await runChild(node, {
        tier,
        sizes: used,
        seconds,
        warmSeconds,
        concurrency: c,
        tiers: TIERS_MODULE,
        identity: IDENTITY_MODULE,
        prebuilt: PREBUILT,
        rpcServer: RPC_SERVER,
      });
      version = out.node;
      if (out.skipped) {
        skipped[tier] = out.skipped;
        log(`calibrate: ${tier} skipped: ${out.skipped}`);
        continue;
      }
      samples[tier].push(out);
      log(
        `calibrate: pass ${pass + 1}/${passes} ${tier}: ${out.mainUs.toFixed(2)} us main thread, ` +
          `${out.totalUs.toFixed(2)} us in all per call, ${out.calls} calls`,
      );
    }
  }
  if (skipped.js) throw new Error(`calibrate: the js tier, the baseline, cannot run: ${skipped.js}`);
  const result = {};
  for (const tier of names) {
    if (skipped[tier]) {
      result[tier] = { skipped: skipped[tier] };
      continue;
    }
    const runs = samples[tier];
    result[tier] = {
      mainUs: median(runs.map((r) => r.mainUs)),
      totalUs: median(runs.map((r) => r.totalUs)),
      childrenUs: median(runs.map((r) => r.childrenUs)),
      calls: runs.reduce((sum, r) => sum + r.calls, 0),
      wallMs: runs.reduce((sum, r) => sum + r.wallMs, 0),
      concurrency: runs[0].concurrency,
      passes: runs.map(({ mainUs, totalUs, childrenUs, calls, wallMs }) => ({
        mainUs,
        totalUs,
        childrenUs,
        calls,
        wallMs,
      })),
    };
  }
  const js = result.js;
  for (const figures of Object.values(result)) {
    if (figures.skipped) continue;
    figures.boundaryMainUs = Math.max(0, figures.mainUs - js.mainUs);
    figures.boundaryTotalUs = Math.max(0, figures.totalUs - js.totalUs);
  }
  return { node: version, sizes: used, seconds, passes, tiers: result };
}

module.exports = { calibrate, TIERS, LADDER_TIERS, CONCURRENCY, MAX_INPUT_BYTES, MAX_OUTPUT_BYTES };
