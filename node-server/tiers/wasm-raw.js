'use strict';

// Tier 2: the same core behind the hand-written Wasm ABI and a small loader.
const fs = require('node:fs');
const { QrError } = require('../lib/errors');
const { QrWasmRaw } = require('../lib/qr-wasm-raw');
const { wasmFile } = require('../lib/wasm-files');

let module_;
let instance;

async function start() {
  module_ = new WebAssembly.Module(fs.readFileSync(wasmFile('pkg-raw/qr_wasm_raw.wasm')));
  instance = new QrWasmRaw(module_);
}

/** A trap leaves the instance's memory in an unknown state: replace it. */
function guarded(call) {
  try {
    return call(instance);
  } catch (err) {
    if (!(err instanceof WebAssembly.RuntimeError)) throw err;
    instance = new QrWasmRaw(module_);
    throw new QrError('WASM_TRAP', `qr_wasm trapped: ${err.message}`, { cause: err });
  }
}

async function generateQrCode(text) {
  return guarded((wasm) => wasm.generateQrCode(text));
}

/** Test-only: traps the instance through the same path as a real call. */
async function trapForTesting() {
  guarded((wasm) => wasm.trapForTesting());
}

/** The current instance's memory size, for the leak test. */
function memoryBytes() {
  return instance.memoryBytes;
}

module.exports = { start, generateQrCode, trapForTesting, memoryBytes };
