'use strict';

// Tier 2: the wasm-bindgen package built by wasm-pack (`--target nodejs`).
const { runOnLoop } = require('../lib/sync-queue');
const { withTrapRecovery } = require('../lib/wasm-trap');
const { wasmFile } = require('../lib/wasm-files');

let pkgPath;
let wasm;

/** A fresh require of the package is a fresh instance with fresh memory. */
function instantiate() {
  delete require.cache[pkgPath];
  wasm = require(pkgPath);
}

async function start() {
  pkgPath = wasmFile('pkg/qr_wasm.js');
  wasmFile('pkg/qr_wasm_bg.wasm');
  instantiate();
}

function generateQrCode(text) {
  return runOnLoop(() => {
    // The glue already copied the PNG out of Wasm memory into a JS-owned
    // Uint8Array; a Buffer view over it avoids a second copy.
    const png = withTrapRecovery(() => wasm.generateQrCode(text), instantiate);
    return Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  });
}

/** Test-only: traps the instance through the same path as a real call. */
async function trapForTesting() {
  withTrapRecovery(() => wasm.__trapForTesting(), instantiate);
}

module.exports = { start, generateQrCode, trapForTesting };
