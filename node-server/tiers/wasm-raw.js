'use strict';

// Tier 2: the same core behind the hand-written Wasm ABI and a small loader.
const fs = require('node:fs');
const { createEventLoopTier, withTrapRecovery } = require('tier-adapters');
const { QrWasmRaw } = require('../lib/qr-wasm-raw');
const { wasmFile } = require('../lib/wasm-files');

async function createTier({ maxQueue, deferTurn } = {}) {
  const module_ = new WebAssembly.Module(fs.readFileSync(wasmFile('pkg-raw/qr_wasm_raw.wasm')));
  let instance = new QrWasmRaw(module_);
  const replaceInstance = () => (instance = new QrWasmRaw(module_));
  return createEventLoopTier(
    (text) => withTrapRecovery(() => instance.generateQrCode(text), replaceInstance, 'qr_wasm_raw'),
    {
      maxQueue,
      deferTurn,
    },
  );
}

module.exports = { createTier };
