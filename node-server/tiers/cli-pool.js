'use strict';

// Tier 1: a fixed pool of long-lived `qr_cli --serve` workers.
const os = require('node:os');
const { binaryPath } = require('../lib/binaries');
const { Limiter } = require('../lib/limiter');
const { QrCliWorker } = require('../lib/qr-cli-worker');
const { createBackoff } = require('../lib/backoff');
// Frames written ahead to each worker: enough that it never waits for Node,
// few enough that the rest wait here, where a gone client can leave the queue.
const PIPELINE_DEPTH = 4;

let bin;
let workers = [];
let limiter;
let closing = false;

async function start({ poolSize = os.availableParallelism(), maxQueue = 512 } = {}) {
  bin = binaryPath('qr_cli');
  workers = Array.from({ length: poolSize }, (_, i) => spawnWorker(i, createBackoff()));
  limiter = new Limiter({ concurrency: poolSize * PIPELINE_DEPTH, maxQueue });
}

function spawnWorker(slot, backoff) {
  const worker = new QrCliWorker(bin);
  const started = Date.now();
  worker.on('exit', (reason) => {
    if (closing) return;
    // Its in-flight requests were already rejected (500). The delay (100 ms,
    // doubling while workers keep dying young) keeps a broken binary from spinning.
    const delay = backoff.next(Date.now() - started);
    console.error(`qr_cli worker ${worker.child.pid} ${reason}; replacing it in ${delay} ms`);
    setTimeout(() => {
      if (!closing) workers[slot] = spawnWorker(slot, backoff);
    }, delay).unref();
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
