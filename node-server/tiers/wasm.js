'use strict';

// Tier 2: the wasm-bindgen package built by wasm-pack (`--target nodejs`).
const { createEventLoopTier, loadWasmBindgen } = require('tier-adapters');
const { wasmFile } = require('../lib/wasm-files');

async function createTier({ maxQueue, deferTurn } = {}) {
  const pkgPath = wasmFile('pkg/qr_wasm.js');
  wasmFile('pkg/qr_wasm_bg.wasm');
  const generate = loadWasmBindgen(pkgPath, 'qr_wasm');
  return createEventLoopTier(
    (text) => {
      // The glue already copied the PNG out of Wasm memory into a JS-owned
      // Uint8Array; a Buffer view over it avoids a second copy.
      const png = generate((wasm) => wasm.generateQrCode(text));
      return Buffer.from(png.buffer, png.byteOffset, png.byteLength);
    },
    { maxQueue, deferTurn },
  );
}

module.exports = { createTier };
