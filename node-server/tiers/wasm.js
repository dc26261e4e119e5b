'use strict';

// Tier 2: the wasm-bindgen package built by wasm-pack (`--target nodejs`).
const { createEventLoopTier, withTrapRecovery } = require('tier-adapters');
const { wasmFile } = require('../lib/wasm-files');

async function createTier({ maxQueue, deferTurn } = {}) {
  const pkgPath = wasmFile('pkg/qr_wasm.js');
  wasmFile('pkg/qr_wasm_bg.wasm');
  let wasm;
  // A fresh require of the package is a fresh instance with fresh memory.
  const instantiate = () => {
    delete require.cache[pkgPath];
    wasm = require(pkgPath);
  };
  instantiate();
  return createEventLoopTier(
    (text) => {
      // The glue already copied the PNG out of Wasm memory into a JS-owned
      // Uint8Array; a Buffer view over it avoids a second copy.
      const png = withTrapRecovery(() => wasm.generateQrCode(text), instantiate, 'qr_wasm');
      return Buffer.from(png.buffer, png.byteOffset, png.byteLength);
    },
    { maxQueue, deferTurn },
  );
}

module.exports = { createTier };
