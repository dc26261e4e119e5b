'use strict';

// Tier 1: a fixed pool of long-lived `qr_cli --serve` workers.
const os = require('node:os');
const { binaryPath } = require('../lib/binaries');
const { Limiter } = require('../lib/limiter');
const { QrCliWorker } = require('../lib/qr-cli-worker');

const RESPAWN_DELAY_MS = 100;
// Frames written ahead to each worker: enough that it never waits for Node,
// few enough that the rest wait here, where a gone client can leave the queue.
const PIPELINE_DEPTH = 4;

let bin;
let workers = [];
let limiter;
let closing = false;

async function start({ poolSize = os.availableParallelism(), maxQueue = 512 } = {}) {
  bin = binaryPath('qr_cli');
  workers = Array.from({ length: poolSize }, (_, i) => spawnWorker(i));
  limiter = new Limiter({ concurrency: poolSize * PIPELINE_DEPTH, maxQueue });
}

function spawnWorker(slot) {
  const worker = new QrCliWorker(bin);
  worker.on('exit', (reason) => {
    if (closing) return;
    console.error(`qr_cli worker ${worker.child.pid} ${reason}; replacing it`);
    // Its in-flight requests were already rejected (500). A short delay keeps
    // a worker that dies at start from spinning.
    setTimeout(() => {
      if (!closing) workers[slot] = spawnWorker(slot);
    }, RESPAWN_DELAY_MS).unref();
  });
  return worker;
}

function generateQrCode(text, { signal } = {}) {
  return limiter.run(() => dispatch(text), signal);
}

function dispatch(text) {
  // Least in-flight first: a slow request does not queue others behind it.
  let best;
  for (const worker of workers) {
    if (worker.exited) continue;
    if (!best || worker.inFlight < best.inFlight) best = worker;
  }
  return (best ?? workers[0]).generateQrCode(text);
}

async function close() {
  closing = true;
  await Promise.all(workers.map((w) => w.close()));
}

/** The workers' pids, for tests and the benchmark's process-tree sampling. */
function workerPids() {
  return workers.filter((w) => !w.exited).map((w) => w.child.pid);
}

module.exports = { start, generateQrCode, close, workerPids };
