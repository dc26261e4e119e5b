'use strict';

// The one list of tiers. node-server serves the ones with an adapter module
// (`load`), the benchmark and the tests read the rest of each entry. A new
// tier is one adapter file plus one entry here.
//
// An adapter module exports `createTier(options) -> Promise<{ run(text, { signal }), close() }>`
// (see tier-adapters) and, for cluster mode, may export `startShared(options)`.
const TIERS = [
  { name: 'js', level: 0, runs: 'npm `qrcode`, in the Node process', rust: false, load: () => require('./js') },
  {
    name: 'js-workers',
    level: 0,
    runs: 'npm `qrcode` in a piscina worker-thread pool, one thread per CPU',
    rust: false,
    load: () => require('./js-workers'),
  },
  { name: 'cli', level: 1, runs: '`qr_cli` spawned per request', rust: true, load: () => require('./cli') },
  {
    name: 'cli-pool',
    level: 1,
    runs: 'long-lived `qr_cli` workers, framed messages over stdio',
    rust: true,
    load: () => require('./cli-pool'),
  },
  { name: 'wasm', level: 2, runs: 'wasm-bindgen module built by wasm-pack', rust: true, load: () => require('./wasm') },
  {
    name: 'wasm-raw',
    level: 2,
    runs: 'the same core behind a hand-written Wasm ABI',
    rust: true,
    load: () => require('./wasm-raw'),
  },
  {
    name: 'napi',
    level: 3,
    runs: 'napi-rs addon, called on the event loop',
    rust: true,
    load: () => require('./napi'),
  },
  // node:ffi exists from Node 26 on (Bun and Deno load the library with their own FFI): `needs` names what a
  // Node must have to serve the tier.
  {
    name: 'ffi',
    level: 3,
    runs: "the core behind a plain C ABI (`qr_ffi`), called through the runtime's FFI",
    rust: true,
    needs: 'node:ffi',
    load: () => require('./ffi'),
  },
  {
    name: 'napi-async',
    level: 3,
    runs: "napi-rs `AsyncTask` on libuv's thread pool",
    rust: true,
    load: () => require('./napi-async'),
  },
  {
    name: 'axum-proxy',
    level: 4,
    runs: 'express forwards `/qrcode` to the axum server',
    rust: true,
    load: () => require('./axum-proxy'),
  },
  {
    name: 'axum-rpc',
    level: 4,
    runs: 'express calls the axum server over a Unix socket, many calls per connection',
    rust: true,
    load: () => require('./axum-rpc'),
  },
  // Not node-server: qr_server answers on its own (bench/lib/launch.js starts it).
  { name: 'axum', level: 4, runs: 'the axum server alone', rust: true, server: 'qr_server' },
];

// Not a tier of its own: picks the fastest in-process tier that loads here.
const AUTO = {
  name: 'auto',
  runs: '`napi` if its binary loads, else `wasm`, else `js`',
  load: () => require('./auto'),
};

const SERVED = [...TIERS.filter((t) => t.load), AUTO];
const tierNames = SERVED.map((t) => t.name);

/** The adapter module of a tier node-server serves. */
function loadTier(name) {
  const tier = SERVED.find((t) => t.name === name);
  if (!tier) throw new Error(`unknown tier "${name}" (one of: ${tierNames.join(', ')})`);
  return tier.load();
}

module.exports = { TIERS, tierNames, loadTier };
