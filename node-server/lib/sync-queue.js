'use strict';

// Synchronous work on the event loop, in arrival order, at most one ~2 ms
// slice of it per loop turn. libuv accepts one new connection per turn
// (libuv/libuv#3696), so a turn that ran every ready request's generation
// left new connections in the kernel's accept queue: the js tier at 200
// connections kept some waiting over 10 s. Between slices Node accepts,
// reads and writes.
const { performance } = require('node:perf_hooks');

const SLICE_MS = 2;
const queue = [];
let scheduled = false;

function drain() {
  const end = performance.now() + SLICE_MS;
  do {
    const { job, resolve, reject } = queue.shift();
    try {
      resolve(job());
    } catch (err) {
      reject(err);
    }
  } while (queue.length && performance.now() < end);
  scheduled = queue.length > 0;
  // Queued from inside the check phase, this runs on the next turn.
  if (scheduled) setImmediate(drain);
}

/** @template T @param {() => T} job @returns {Promise<Awaited<T>>} */
function runOnLoop(job) {
  return new Promise((resolve, reject) => {
    queue.push({ job, resolve, reject });
    if (!scheduled) {
      scheduled = true;
      setImmediate(drain);
    }
  });
}

module.exports = { runOnLoop };
