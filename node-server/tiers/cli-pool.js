'use strict';

// Tier 1: a fixed pool of long-lived `qr_cli --serve` workers.
const os = require('node:os');
const { binaryPath } = require('../lib/binaries');
const { QrCliWorker } = require('../lib/qr-cli-worker');

const RESPAWN_DELAY_MS = 100;

let bin;
let workers = [];
let closing = false;

async function start({ poolSize = os.availableParallelism() } = {}) {
  bin = binaryPath('qr_cli');
  workers = Array.from({ length: poolSize }, (_, i) => spawnWorker(i));
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

function generateQrCode(text) {
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
