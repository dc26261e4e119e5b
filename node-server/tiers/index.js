'use strict';

// Tier name -> adapter module, required only when that tier is chosen.
// Every adapter exports `generateQrCode(text, { signal }) -> Promise<Buffer>`
// (the signal aborts when the client goes away; tiers that queue honour it) and may
// export `start(options)`, `close()` and, for cluster mode, `startShared()`.
const TIERS = {
  js: () => require('./js'),
  cli: () => require('./cli'),
  'cli-pool': () => require('./cli-pool'),
  wasm: () => require('./wasm'),
  'wasm-raw': () => require('./wasm-raw'),
  napi: () => require('./napi'),
  'napi-async': () => require('./napi-async'),
  'axum-proxy': () => require('./axum-proxy'),
};

function loadTier(name) {
  const load = TIERS[name];
  if (!load) throw new Error(`unknown tier "${name}" (one of: ${Object.keys(TIERS).join(', ')})`);
  return load();
}

module.exports = { TIERS, loadTier, tierNames: Object.keys(TIERS) };
