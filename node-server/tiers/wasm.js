'use strict';

// Tier 2: the wasm-bindgen package built by wasm-pack (`--target nodejs`).
const { createLoopQueue } = require('../lib/sync-queue');
const { withTrapRecovery } = require('../lib/wasm-trap');
const { wasmFile } = require('../lib/wasm-files');

let pkgPath;
let wasm;
let queue;

/** A fresh require of the package is a fresh instance with fresh memory. */
function instantiate() {
  delete require.cache[pkgPath];
  wasm = require(pkgPath);
}

async function start({ maxQueue = 512 } = {}) {
  queue = createLoopQueue({ maxQueue });
  pkgPath = wasmFile('pkg/qr_wasm.js');
  wasmFile('pkg/qr_wasm_bg.wasm');
  instantiate();
}

function generateQrCode(text, { signal } = {}) {
  return queue.run(() => {
    // The glue already copied the PNG out of Wasm memory into a JS-owned
    // Uint8Array; a Buffer view over it avoids a second copy.
    const png = withTrapRecovery(() => wasm.generateQrCode(text), instantiate);
    return Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  }, { signal });
}

module.exports = { start, generateQrCode };
