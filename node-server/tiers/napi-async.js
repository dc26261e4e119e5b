'use strict';

// Tier 3: the napi-rs AsyncTask; the work runs on libuv's thread pool
// (UV_THREADPOOL_SIZE threads), so one process uses every core.
const { createThreadPoolTier } = require('tier-adapters');
const { loadAddon } = require('../lib/addon');

const THREADS = Number(process.env.UV_THREADPOOL_SIZE) || 4;
// Tasks handed to libuv per thread: with 2, threads waited for the busy event
// loop to hand them the next one (~15% fewer req/s).
const TASKS_PER_THREAD = 16;

async function createTier({ maxQueue } = {}) {
  const addon = loadAddon();
  return createThreadPoolTier((text) => addon.generateQrCode(text), {
    concurrency: THREADS * TASKS_PER_THREAD,
    maxQueue,
  });
}

module.exports = { createTier };
