'use strict';

// A fixed piece of work timed in CPU time, again and again through a
// measured window: how fast the machine ran it at that moment. A shared VM
// reports little or no steal, yet in some windows every process on it spends
// 10-20% more CPU on the same work (a server's and the load generator's costs
// per request rise together); the probe's cost in the same window says by
// how much. It also reads the contention of the server beside it, so it is
// compared within one server's windows, not across tiers. Timed with
// process.cpuUsage (every thread of the sampler's process: its others idle).

const { mean, median } = require('./stats');

// 256 KiB: past L1, inside L2, as a server's working set is.
const WORDS = 1 << 16;
const STEPS = 20_000;

/** Every `everyMs` ms, one unit of work; `stop()` gives its mean and median CPU us per unit. */
function createSpeedProbe({ everyMs = 20 } = {}) {
  const table = new Uint32Array(WORDS).map((_, i) => Math.imul(i, 2654435761) >>> 0);
  let seed = 0x9e3779b9;
  const unit = () => {
    let x = seed;
    let acc = 0;
    for (let i = 0; i < STEPS; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      const j = x & (WORDS - 1);
      acc = (acc + table[j]) | 0;
      table[j] = acc ^ x;
    }
    seed = x;
    return acc;
  };
  // Optimised before the first window: an interpreted unit costs several times more.
  for (let i = 0; i < 300; i++) unit();
  let timer = null;
  let samples = [];
  const sample = () => {
    const before = process.cpuUsage();
    unit();
    const spent = process.cpuUsage(before);
    samples.push(spent.user + spent.system);
  };
  return {
    start() {
      clearInterval(timer);
      samples = [];
      timer = setInterval(sample, everyMs);
    },
    stop() {
      clearInterval(timer);
      timer = null;
      return { cpuUs: mean(samples), medianCpuUs: median(samples), units: samples.length };
    },
  };
}

module.exports = { createSpeedProbe };
