'use strict';

const { serverBusy } = require('./errors');

/**
 * Runs at most `concurrency` tasks at once; up to `maxQueue` more wait in FIFO
 * order and the rest are refused with 503 `server busy`, so a burst costs a
 * bounded amount of memory. A waiter whose `signal` aborts (its client went
 * away) leaves the queue without ever running.
 */
class Limiter {
  constructor({ concurrency, maxQueue }) {
    this.concurrency = concurrency;
    this.maxQueue = maxQueue;
    this.active = 0;
    this.waiting = [];
  }

  /** @template T @param {() => Promise<T>} task @param {AbortSignal} [signal] @returns {Promise<T>} */
  run(task, signal) {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.active < this.concurrency) {
      this.active++;
      return this.runNow(task);
    }
    if (this.waiting.length >= this.maxQueue) return Promise.reject(serverBusy());
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        reject(signal.reason);
      };
      const waiter = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(this.runNow(task));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  async runNow(task) {
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter, or free it.
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}

module.exports = { Limiter };
