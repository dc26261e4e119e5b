'use strict';

// Tier 3: the napi-rs AsyncTask; the work runs on libuv's thread pool
// (UV_THREADPOOL_SIZE threads), so one process uses every core.
const { loadAddon } = require('../lib/addon');
const { Limiter } = require('../lib/limiter');

// libuv's own queue is unbounded and shared with fs and dns: keep enough
// tasks per thread there that no thread waits for the busy event loop to hand
// it the next one (2 per thread cost ~15% of req/s), the rest in a bounded
// queue here.
const THREADS = Number(process.env.UV_THREADPOOL_SIZE) || 4;
const TASKS_PER_THREAD = 16;

let addon;
let limiter;

async function start({ maxQueue = 512 } = {}) {
  addon = loadAddon();
  limiter = new Limiter({ concurrency: THREADS * TASKS_PER_THREAD, maxQueue });
}

function generateQrCode(text, { signal } = {}) {
  // A gone client leaves the queue here; the few tasks already handed to libuv
  // are cheaper to finish than to cancel.
  return limiter.run(() => addon.generateQrCode(text), signal);
}

module.exports = { start, generateQrCode };
