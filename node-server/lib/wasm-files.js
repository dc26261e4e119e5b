'use strict';

const fs = require('node:fs');
const path = require('node:path');

const WASM_DIR = path.resolve(__dirname, '../../qr_wasm');

/** Path of a built Wasm artifact, or one clear line saying how to build it. */
function wasmFile(relative) {
  const file = path.join(WASM_DIR, relative);
  if (!fs.existsSync(file)) throw new Error(`${file} not found: run \`scripts/build-wasm.sh\` (or \`make build\`)`);
  return file;
}

module.exports = { wasmFile };
