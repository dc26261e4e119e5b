'use strict';

// A promise-returning function whose work runs off the event loop (a napi-rs
// AsyncTask on libuv's pool, a worker_threads pool): a few calls are handed
// over at a time, the rest wait in a bounded queue here, where a client that
// hangs up can still leave it. libuv's own queue is unbounded and shared with
// fs and dns, so it must not hold the backlog.
const { Limiter } = require('./bounded-limiter');
const { closedError } = require('./closing');

/**
 * @template I, O
 * @param {(input: I) => Promise<O>} fn
 * @param {{ concurrency: number, maxQueue?: number }} options
 *   concurrency: calls handed to the pool at once (enough per thread that no
 *   thread waits for the event loop to hand it the next one).
 */
function createThreadPoolTier(fn, { concurrency, maxQueue = 512 }) {
  const limiter = new Limiter({ concurrency, maxQueue });
  let closed = false;
  return {
    /**
     * @param {I} input
     * @param {{ signal?: AbortSignal, priority?: 'low' | 'normal' }} [options]
     * @returns {Promise<O>}
     */
    run(input, { signal, priority } = {}) {
      if (closed) return Promise.reject(closedError());
      // Calls already handed over finish; cancelling them costs more.
      return limiter.run(() => fn(input), signal, { priority });
    },
    get running() {
      return limiter.active;
    },
    get queued() {
      return limiter.size;
    },
    async close() {
      closed = true;
    },
  };
}

module.exports = { createThreadPoolTier };
