'use strict';

// Synchronous work on the event loop, in arrival order, at most one ~2 ms
// slice of it per loop turn. libuv accepts one new connection per turn
// (libuv/libuv#3696), so a turn that ran every ready request's generation
// left new connections in the kernel's accept queue: with ~1 ms jobs at 200
// connections some waited over 10 s. Between slices Node accepts, reads and
// writes.
//
// The same libuv rule makes a connection storm wait behind the slices:
// each new client waits one turn per client ahead of it in the accept
// queue, and each of those turns ran a slice (measured: 100 pipelining
// clients, then a new one, whose first answer took 1.5 s on the js tier).
// `deferTurn()` says whether a connection was accepted since it was last
// asked; while it says yes, the slice waits a turn (at most
// MAX_DEFERRED_TURNS in a row), so accepting runs at its own pace.
//
// Bounded like the Limiter of the other tiers: at most `maxQueue` jobs wait,
// the next is refused with 503 `server busy`, a job whose signal aborts (its
// client hung up) leaves the queue without running, and jobs given
// `priority: 'low'` run only when no other waits.
const { performance } = require('node:perf_hooks');
const { serverBusy } = require('./errors');

const SLICE_MS = 2;
const MAX_DEFERRED_TURNS = 64;

/**
 * @param {{ maxQueue?: number, sliceMs?: number, deferTurn?: () => boolean }} [options]
 * @returns {{
 *   run<T>(job: () => T, options?: { signal?: AbortSignal, priority?: 'low' | 'normal' }): Promise<Awaited<T>>,
 *   readonly size: number,
 * }}
 */
function createLoopQueue({ maxQueue = Infinity, sliceMs = SLICE_MS, deferTurn } = {}) {
  const normal = createFifo();
  const low = createFifo();
  let scheduled = false;
  let deferred = 0;

  function drain() {
    if (deferTurn?.() && deferred < MAX_DEFERRED_TURNS) {
      deferred++;
      setImmediate(drain);
      return;
    }
    deferred = 0;
    const end = performance.now() + sliceMs;
    do {
      const entry = normal.shift() ?? low.shift();
      if (entry.cancelled) continue;
      entry.signal?.removeEventListener('abort', entry.onAbort);
      try {
        entry.resolve(entry.job());
      } catch (err) {
        entry.reject(err);
      }
    } while ((normal.length || low.length) && performance.now() < end);
    scheduled = normal.length > 0 || low.length > 0;
    // Queued from inside the check phase, this runs on the next turn.
    if (scheduled) setImmediate(drain);
  }

  let waiting = 0;
  /** @param {() => unknown} job @param {{ signal?: AbortSignal, priority?: 'low' | 'normal' }} [options] */
  function run(job, { signal, priority = 'normal' } = {}) {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (waiting >= maxQueue) return Promise.reject(serverBusy());
    return new Promise((resolve, reject) => {
      const entry = { job, signal, cancelled: false, onAbort: null, resolve, reject };
      waiting++;
      const settle = (fn) => (value) => {
        waiting--;
        fn(value);
      };
      entry.resolve = settle(resolve);
      entry.reject = settle(reject);
      if (signal) {
        entry.onAbort = () => {
          entry.cancelled = true;
          entry.reject(signal.reason);
        };
        signal.addEventListener('abort', entry.onAbort, { once: true });
      }
      (priority === 'low' ? low : normal).push(entry);
      if (!scheduled) {
        scheduled = true;
        setImmediate(drain);
      }
    });
  }

  return {
    run,
    /** Jobs waiting to run. */
    get size() {
      return waiting;
    },
  };
}

/** FIFO as an array with a moving head: shift() on a long array is O(n). */
function createFifo() {
  let items = [];
  let head = 0;
  return {
    push(item) {
      items.push(item);
    },
    shift() {
      if (head === items.length) return undefined;
      const item = items[head];
      items[head++] = undefined;
      if (head === items.length) {
        items = [];
        head = 0;
      }
      return item;
    },
    get length() {
      return items.length - head;
    },
  };
}

module.exports = { createLoopQueue, SLICE_MS, MAX_DEFERRED_TURNS };
