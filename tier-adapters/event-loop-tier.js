'use strict';

// A synchronous function run on the event loop: for a function that costs
// microseconds (a napi call, a Wasm call, plain JS), where handing it to a
// thread costs more than running it.
const { createLoopQueue } = require('./event-loop-queue');
const { closedError } = require('./closing');

/**
 * @template I, O
 * @param {(input: I) => O} fn
 * @param {{ maxQueue?: number, sliceMs?: number, deferTurn?: () => boolean }} [options]
 *   maxQueue: calls that may wait, past it 503 `server busy`; sliceMs: the
 *   most the queue runs per loop turn before letting Node do I/O;
 *   deferTurn: whether the server accepted a connection since last asked
 *   (then the next slice waits a turn, see event-loop-queue.js).
 */
function createEventLoopTier(fn, { maxQueue = 512, sliceMs, deferTurn } = {}) {
  const queue = createLoopQueue({ maxQueue, sliceMs, deferTurn });
  let closed = false;
  return {
    /**
     * @param {I} input
     * @param {{ signal?: AbortSignal, priority?: 'low' | 'normal' }} [options]
     * @returns {Promise<Awaited<O>>}
     */
    run(input, { signal, priority } = {}) {
      if (closed) return Promise.reject(closedError());
      return queue.run(() => fn(input), { signal, priority });
    },
    /** Always 0 when asked: calls run on the event loop, which is asking. */
    get running() {
      return 0;
    },
    /** Calls waiting for their turn. */
    get queued() {
      return queue.size;
    },
    async close() {
      closed = true;
    },
  };
}

module.exports = { createEventLoopTier };
