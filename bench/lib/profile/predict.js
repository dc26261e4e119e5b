'use strict';

// What each rung of the ladder can buy, from two measured windows of the
// service (`js`: as it is; `free`: the function answering from memory, as if
// it cost nothing) and each rung's boundary cost per call (calibrate.js).
//
// Per request, with k calls of the function:
//   main thread  M = M_free + k * boundaryMain   (+ the function's main-thread CPU, where it stays on the loop)
//   whole tree   C = C_free + k * boundaryTotal  (+ the function's CPU, unless Rust costs nothing)
// and req/s is held by the busier of two limits: the main thread at the
// utilisation the free window reached, and the machine's cores shared with
// the load generator (its CPU per request as measured). The ceiling takes
// the Rust side at zero cost; the floor takes it as costly as the JavaScript,
// on the main thread wherever the rung runs it.

/**
 * Where each rung runs the function: on the event loop, on threads of the process, or in other processes;
 * `alike`: measured tiers of another name that make the same hop.
 */
const RUNGS = {
  napi: { runs: 'loop', what: 'the N-API addon, called on the event loop' },
  ffi: { runs: 'loop', what: 'the C-ABI library through node:ffi, on the event loop' },
  wasm: { runs: 'loop', what: 'the Wasm module, on the event loop' },
  'napi-async': { runs: 'threads', what: "the addon's AsyncTask, on libuv's thread pool" },
  'cli-pool': { runs: 'processes', what: 'long-lived CLI workers over framed stdio' },
  // Not a ladder tier: the hop to a Rust service, as this repository's axum-rpc makes it.
  rpc: { runs: 'processes', what: 'a Rust service called over a Unix socket (RPC frames)', alike: ['axum-rpc'] },
  cli: { runs: 'processes', what: 'a CLI process per call' },
};

/**
 * @typedef {{ rps: number, cpuUs: number, mainUs: number, generatorUs: number, mainCores: number }} ServiceFigures
 */

/**
 * @param {ServiceFigures} js
 * @param {ServiceFigures} free
 * @param {{ callsPerRequest: number, cores: number,
 *   boundaries: Record<string, { mainUs: number, totalUs: number }> }} options
 */
function predict(js, free, { callsPerRequest: k, cores, boundaries }) {
  const fn = { cpuUs: Math.max(0, js.cpuUs - free.cpuUs), mainUs: Math.max(0, js.mainUs - free.mainUs) };
  const share = js.cpuUs > 0 ? fn.cpuUs / js.cpuUs : NaN;
  const rpsOf = (mainUs, cpuUs) =>
    Math.min((free.mainCores * 1e6) / mainUs, (cores * 1e6) / (cpuUs + free.generatorUs));
  const point = (mainUs, cpuUs) => ({ mainUs, cpuUs, rps: rpsOf(mainUs, cpuUs) / js.rps, cpu: js.cpuUs / cpuUs });
  const tiers = [];
  for (const [name, rung] of Object.entries(RUNGS)) {
    const boundary = boundaries[name];
    if (!boundary) continue;
    const mainUs = free.mainUs + k * boundary.mainUs;
    const cpuUs = free.cpuUs + k * boundary.totalUs;
    tiers.push({
      name,
      ...rung,
      boundaryUsPerRequest: { main: k * boundary.mainUs, total: k * boundary.totalUs },
      ceiling: point(mainUs, cpuUs),
      // Off the loop, the floor takes no credit for the other cores: the identity's hop, called in a loop,
      // costs the main thread far less than the same hop in a served request (docs/prediction.md).
      floor: point(mainUs + fn.mainUs, cpuUs + fn.cpuUs),
    });
  }
  return {
    function: { ...fn, share, serviceCpuUs: js.cpuUs, callsPerRequest: k, cpuUsPerCall: k > 0 ? fn.cpuUs / k : NaN },
    free: point(free.mainUs, free.cpuUs),
    tiers,
  };
}

// Below this, a port is not worth its build, its binaries and its reviews.
const WORTH = 1.1;
// A ceiling below this loses to the JavaScript: a whole percent, not a rounding.
const LOSS = 0.99;
// Ceilings closer than this are within the calibration's noise.
const TIE = 0.95;

/** The verdict: what to try first, what loses and why, or why not to port. Lines of plain text. */
function verdict({ function: fn, free, tiers }, { name = 'the function' } = {}) {
  const pct = (x) => `${(x * 100).toFixed(x < 0.1 ? 1 : 0)}%`;
  const x = (r) => `${r.toFixed(2)}x`;
  const lines = [];
  // Rungs within TIE of the best are one choice: the ladder's order (RUNGS) picks among them.
  const top = Math.max(...tiers.map((t) => t.ceiling.rps));
  const tied = tiers.filter((t) => t.ceiling.rps >= top * TIE);
  const best = tied[0];
  lines.push(
    `${name} is ${pct(fn.share)} of the service's CPU per request (${fn.cpuUs.toFixed(1)} of ` +
      `${fn.serviceCpuUs.toFixed(1)} us, ${fn.callsPerRequest.toFixed(2)} calls): ` +
      `even free, a port could reach ${x(free.rps)} the req/s and ${x(free.cpu)} the CPU per request.`,
  );
  if (!best || best.ceiling.rps < WORTH) {
    const percent = best && ((best.ceiling.rps - 1) * 100).toFixed(1);
    const gain = best ? `${best.ceiling.rps >= 1 ? '+' : ''}${percent}% req/s` : 'n/a';
    lines.push(
      `Do not port it: no rung can buy ${pct(WORTH - 1)} (the best, ${best?.name ?? 'none'}, ${gain} at most). ` +
        'Move a larger piece of the request into the function first.',
    );
  } else {
    const others = tied.slice(1).map((t) => t.name);
    const alike = others.length ? ` (${others.join(' and ')} within ${pct(1 - TIE)} of it)` : '';
    lines.push(
      `Try ${best.name} first (${best.what})${alike}: ` +
        `at most ${x(best.ceiling.rps)} the req/s and ${x(best.ceiling.cpu)} the CPU per request; ` +
        `${x(best.floor.rps)} and ${x(best.floor.cpu)} if Rust is no faster than the JavaScript.`,
    );
  }
  for (const t of tiers) {
    if (t.ceiling.rps >= LOSS && t.ceiling.cpu >= LOSS) continue;
    const lost = t.ceiling.rps < 1 ? `${x(t.ceiling.rps)} the req/s` : `${x(t.ceiling.cpu)} the CPU per request`;
    lines.push(
      `${t.name} loses even if Rust costs nothing (${lost}): its boundary costs ` +
        `${t.boundaryUsPerRequest.total.toFixed(1)} us of CPU per request, the function ${fn.cpuUs.toFixed(1)} us.`,
    );
  }
  if (fn.callsPerRequest > 1.5 && tiers.some((t) => t.boundaryUsPerRequest.total > fn.cpuUs / 2)) {
    const times = fn.callsPerRequest.toFixed(1);
    lines.push(`It is called ${times} times a request: one call with the batch pays the boundary once.`);
  }
  return lines;
}

module.exports = { predict, verdict, RUNGS, WORTH };
