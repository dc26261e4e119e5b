'use strict';

// Tier 2: the wasm-bindgen package built by wasm-pack (`--target nodejs`).
const { QrError } = require('../lib/errors');
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

/** Calls into the module; a trap leaves the instance unusable, so replace it. */
function guarded(call) {
  try {
    return call();
  } catch (err) {
    if (!(err instanceof WebAssembly.RuntimeError)) throw err; // the core's own errors
    instantiate();
    throw new QrError('WASM_TRAP', `qr_wasm trapped: ${err.message}`, { cause: err });
  }
}

async function generateQrCode(text) {
  // The glue already copied the PNG out of Wasm memory into a JS-owned
  // Uint8Array; a Buffer view over it avoids a second copy.
  const png = guarded(() => wasm.generateQrCode(text));
  return Buffer.from(png.buffer, png.byteOffset, png.byteLength);
}

/** Test-only: traps the instance through the same path as a real call. */
async function trapForTesting() {
  guarded(() => wasm.__trapForTesting());
}

module.exports = { start, generateQrCode, trapForTesting };
