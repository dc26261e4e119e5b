'use strict';

// Tier 0, with threads: tier `js`'s function in a piscina worker-thread pool,
// one thread per CPU; the answer to "do I need Rust, or just more threads?".
// The bounded queue and abort on hang-up are the adapters' thread-pool tier.
const os = require('node:os');
const path = require('node:path');
const { Piscina } = require('piscina');
const { createThreadPoolTier } = require('tier-adapters');
const { QrError } = require('../lib/errors');

// Calls handed to piscina per thread: enough that a thread never waits for
// the event loop to hand it the next one.
const TASKS_PER_THREAD = 4;

async function createTier({ maxQueue, threads = os.availableParallelism(), log } = {}) {
  const pool = new Piscina({
    filename: path.join(__dirname, '../workers/qrcode-worker.js'),
    minThreads: threads,
    maxThreads: threads,
    // The adapters' limiter holds the backlog; it never reaches piscina's queue limit.
    maxQueue: threads * TASKS_PER_THREAD,
    // Each thread is a V8 isolate of its own; left alone, each one's young
    // generation grows to tens of MB under load, on top of the main thread's.
    resourceLimits: { maxYoungGenerationSizeMb: 8 },
  });
  // What piscina cannot pin on a call (a thread lost between calls, a close
  // that timed out) it emits on the pool: unheard, an 'error' event ends the
  // process. Piscina replaces a lost thread; the line says it happened.
  pool.on('error', (err) => log?.warn(`js-workers: the pool reported ${err.message}`));
  const generate = async (text) => {
    const out = await pool.run(text);
    if (!(out instanceof Uint8Array)) throw new QrError(out.code, out.message);
    return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  };
  const tier = createThreadPoolTier(generate, { concurrency: threads * TASKS_PER_THREAD, maxQueue });
  return {
    run: tier.run,
    get running() {
      return tier.running;
    },
    get queued() {
      return tier.queued;
    },
    async close() {
      await tier.close();
      await pool.close();
    },
  };
}

module.exports = { createTier };
