'use strict';

const fs = require('node:fs');
const path = require('node:path');

/** `$QR_WASM_DIR`, or the crate's build output (pkg/ and pkg-raw/). */
function wasmDir() {
  return process.env.QR_WASM_DIR || path.resolve(__dirname, '../../qr_wasm');
}

/** Path of a built Wasm artifact, or one clear line saying how to build it. */
function wasmFile(relative) {
  const file = path.join(wasmDir(), relative);
  if (!fs.existsSync(file))
    throw new Error(`${file} not found: run \`scripts/build-wasm.sh\` (or \`make build\`) or set QR_WASM_DIR`);
  return file;
}

module.exports = { wasmFile, wasmDir };
