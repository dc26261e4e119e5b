'use strict';

const { serverBusy } = require('./errors');

/**
 * Runs at most `concurrency` tasks at once; up to `maxQueue` more wait and
 * the rest are refused with 503 `server busy`, so a burst costs a bounded
 * amount of memory. Waiters run in FIFO order, those given `priority: 'low'`
 * only when no other waits: a client that pipelines requests without reading
 * its answers gets the slots nobody else wants. A waiter whose `signal`
 * aborts (its client went away) leaves the queue without ever running.
 */
class Limiter {
  constructor({ concurrency, maxQueue }) {
    this.concurrency = concurrency;
    this.maxQueue = maxQueue;
    this.active = 0;
    this.waiting = [];
    this.waitingLow = [];
  }

  /** Tasks waiting for a slot. */
  get size() {
    return this.waiting.length + this.waitingLow.length;
  }

  /**
   * @template T
   * @param {() => Promise<T>} task
   * @param {AbortSignal} [signal]
   * @param {{ priority?: 'low' | 'normal' }} [options]
   * @returns {Promise<T>}
   */
  run(task, signal, { priority = 'normal' } = {}) {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.active < this.concurrency) {
      this.active++;
      return this.runNow(task);
    }
    if (this.size >= this.maxQueue) return Promise.reject(serverBusy());
    const queue = priority === 'low' ? this.waitingLow : this.waiting;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        queue.splice(queue.indexOf(waiter), 1);
        reject(signal.reason);
      };
      const waiter = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(this.runNow(task));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(waiter);
    });
  }

  async runNow(task) {
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter, or free it.
      const next = this.waiting.shift() ?? this.waitingLow.shift();
      if (next) next();
      else this.active--;
    }
  }
}

module.exports = { Limiter };
