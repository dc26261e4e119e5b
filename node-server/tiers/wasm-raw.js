'use strict';

// Tier 2: the same core behind the hand-written Wasm ABI and a small loader.
const fs = require('node:fs');
const { QrWasmRaw } = require('../lib/qr-wasm-raw');
const { runOnLoop } = require('../lib/sync-queue');
const { withTrapRecovery } = require('../lib/wasm-trap');
const { wasmFile } = require('../lib/wasm-files');

let module_;
let instance;

async function start() {
  module_ = new WebAssembly.Module(fs.readFileSync(wasmFile('pkg-raw/qr_wasm_raw.wasm')));
  instance = new QrWasmRaw(module_);
}

function replaceInstance() {
  instance = new QrWasmRaw(module_);
}

function generateQrCode(text) {
  return runOnLoop(() => withTrapRecovery(() => instance.generateQrCode(text), replaceInstance));
}

/** Test-only: traps the instance through the same path as a real call. */
async function trapForTesting() {
  withTrapRecovery(() => instance.trapForTesting(), replaceInstance);
}

/** The current instance's memory size, for the leak test. */
function memoryBytes() {
  return instance.memoryBytes;
}

module.exports = { start, generateQrCode, trapForTesting, memoryBytes };
