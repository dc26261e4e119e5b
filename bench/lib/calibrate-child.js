'use strict';

// One tier of a calibration (calibrate.js), in a Node process of its own so
// that no other tier's threads, children or JIT state are in its figures:
// checks the identity's output size through the tier for every size pair,
// warms it, then calls it for `seconds` with `concurrency` calls in flight
// and prints one JSON line: CPU per call on the main thread, in the whole
// process tree and in its child processes, calls and wall time; or why the
// tier was skipped.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { createRpcTier } = require('tier-adapters');
const { spawnListening, stopChild } = require('tier-adapters/server');
const { treePids } = require('./proc-tree');
const { platformOf, platformName } = require('./platform');

const TICK_US = 10_000; // USER_HZ is 100 on Linux: /proc times are in 1/100 s

/** /proc/PID/stat fields after the command name (which may hold spaces), or null if it exited. */
function statFields(file) {
  let stat;
  try {
    stat = fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** This thread's CPU µs: process.threadCpuUsage() where Node has it, else /proc (1/100 s steps). */
function mainThreadUs() {
  if (typeof process.threadCpuUsage === 'function') {
    const { user, system } = process.threadCpuUsage();
    return user + system;
  }
  const fields = statFields(`/proc/self/task/${process.pid}/stat`);
  return (Number(fields[11]) + Number(fields[12])) * TICK_US;
}

/**
 * CPU µs of this process (every thread, libuv's pool too) and of its children:
 * those it has reaped (a process per call ends there) and those still alive
 * (a worker pool), each with its own reaped children.
 */
function treeUs() {
  const { user, system } = process.cpuUsage();
  const self = statFields('/proc/self/stat');
  let ticks = Number(self[13]) + Number(self[14]);
  for (const pid of treePids(process.pid)) {
    if (pid === process.pid) continue;
    const fields = statFields(`/proc/${pid}/stat`);
    if (fields) ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  }
  return { processUs: user + system, childrenUs: ticks * TICK_US };
}

// The tiers that run a native artifact, built for one platform (prebuilt.json).
const NATIVE = new Set(['cli', 'cli-pool', 'napi', 'ffi', 'napi-async', 'rpc']);

/** Why a tier's native artifact cannot run on this platform, or null. */
function foreign(name, file) {
  if (!NATIVE.has(name)) return null;
  const here = platformName(platformOf());
  const there = platformName(JSON.parse(fs.readFileSync(file, 'utf8')));
  return here === there ? null : `the prebuilt identity is for ${there}, this Node runs on ${here}`;
}

/**
 * The hop: the identity as a Rust service (calibration/rpc.rs) on a Unix
 * socket, called through tier-adapters' RPC client. Its process is a child
 * of this one, so its CPU is in the tree's.
 */
async function startRpcTier(server, maxQueue) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'calibrate-rpc-'));
  const socket = path.join(dir, 'identity.sock');
  try {
    const { child } = await spawnListening(server, [socket], {
      name: 'identity_rpc',
      readyLine: /listening on (\S+)/,
      detached: false,
    });
    const tier = createRpcTier({ path: socket, name: 'identity_rpc', maxQueue });
    return {
      run: (input) => tier.run(input),
      async close() {
        await tier.close();
        await stopChild(child);
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/** Calls `tier.run` with `concurrency` calls in flight until `until()` says stop; resolves to the calls made. */
async function drive(tier, inputs, concurrency, until) {
  let next = 0;
  let calls = 0;
  const lane = async () => {
    while (!until()) {
      await tier.run(inputs[next++ % inputs.length]);
      calls++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return calls;
}

async function main() {
  const job = JSON.parse(process.argv[2]);
  const { tier: name, sizes, seconds, warmSeconds, concurrency } = job;
  const { createTier, unsupported } = require(job.tiers);
  const { inputFor } = require(job.identity);
  const print = (out) => process.stdout.write(`${JSON.stringify({ node: process.version, tier: name, ...out })}\n`);
  const why = (name === 'rpc' ? null : unsupported(name)) ?? foreign(name, job.prebuilt);
  if (why) return print({ skipped: why });
  const maxQueue = Math.max(512, concurrency);
  let tier;
  try {
    tier = name === 'rpc' ? await startRpcTier(job.rpcServer, maxQueue) : createTier(name, { maxQueue });
  } catch (err) {
    // A prebuilt artifact this system cannot load (an older glibc), or one never built.
    return print({ skipped: err.message.split('\n')[0] });
  }
  try {
    const inputs = sizes.map((s) => inputFor(s.input, s.output));
    // Sizes first: a figure for the wrong sizes is worse than none.
    for (const [i, { output }] of sizes.entries()) {
      const bytes = Buffer.byteLength(inputs[i]);
      let out;
      try {
        out = await tier.run(inputs[i]);
      } catch (err) {
        // The identity refusing its input (a 400) is a bug; a CLI that cannot start
        // here (a loader's error) is as unusable as an addon that cannot load.
        const message = err.message.split('\n')[0];
        if (err.status === 400) throw new Error(`refused an input of ${bytes} bytes asking for ${output}: ${message}`);
        return print({ skipped: `the first call failed: ${message}` });
      }
      if (out.length !== output || (output > 0 && (out[0] !== 0x78 || out[output - 1] !== 0x78))) {
        throw new Error(`returned ${out.length} bytes for an input of ${bytes} bytes asking for ${output}`);
      }
    }
    const warmEnd = performance.now() + warmSeconds * 1000;
    await drive(tier, inputs, concurrency, () => performance.now() >= warmEnd);
    const main0 = mainThreadUs();
    const tree0 = treeUs();
    const start = performance.now();
    const end = start + seconds * 1000;
    // Every call started before the end is waited for: its CPU is in the window.
    const calls = await drive(tier, inputs, concurrency, () => performance.now() >= end);
    const wallMs = performance.now() - start;
    const mainUs = (mainThreadUs() - main0) / calls;
    const tree1 = treeUs();
    const childrenUs = (tree1.childrenUs - tree0.childrenUs) / calls;
    const totalUs = (tree1.processUs - tree0.processUs) / calls + childrenUs;
    print({ mainUs, totalUs, childrenUs, calls, wallMs, concurrency });
  } finally {
    await tier.close();
  }
}

main().catch((err) => {
  process.stderr.write(`${err.message}\n`);
  process.exitCode = 1;
});
