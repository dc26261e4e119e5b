'use strict';

// What held a closed-loop window's req/s back. A "≥" in the report means the
// server would have done more with the same CPUs to itself, so it is only
// printed where the load generator or the machine, not the server, was the
// limit. Checked in this order:
//   - server: one of its threads ran a whole core (a Node event loop is one
//     thread: a faster client would not make it answer sooner);
//   - load generator: autocannon ran most of a core (its one thread also
//     waits on its sockets: past GENERATOR_BUSY it sends no faster, and wrk,
//     run where this holds, gets more from the same server);
//   - machine: every core was busy (server, generator and sampler together),
//     so what the generator used was taken from the server.
// Anything else (idle cores, no thread saturated) limits nothing we can name.
const SATURATED_CORE = 0.9;
const GENERATOR_BUSY = 0.7;
const MACHINE_BUSY = 0.9;

/** 'server', 'load generator', 'machine' or null, from a window's figures. */
function limitOf(r) {
  if (r.busiestThreadCores >= SATURATED_CORE) return 'server';
  if (r.loadGeneratorCpuCores >= GENERATOR_BUSY) return 'load generator';
  if (r.machine?.busy >= MACHINE_BUSY) return 'machine';
  return null;
}

/** Whether req/s is a lower bound of what the server does on its own. */
const isLowerBound = (r) => ['load generator', 'machine'].includes(limitOf(r));

module.exports = { limitOf, isLowerBound, SATURATED_CORE, GENERATOR_BUSY, MACHINE_BUSY };
