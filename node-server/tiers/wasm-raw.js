'use strict';

// Tier 2: the same core behind the hand-written Wasm ABI and a small loader.
const fs = require('node:fs');
const { QrWasmRaw } = require('../lib/qr-wasm-raw');
const { createLoopQueue } = require('../lib/sync-queue');
const { withTrapRecovery } = require('../lib/wasm-trap');
const { wasmFile } = require('../lib/wasm-files');

let module_;
let instance;
let queue;

async function start({ maxQueue = 512 } = {}) {
  queue = createLoopQueue({ maxQueue });
  module_ = new WebAssembly.Module(fs.readFileSync(wasmFile('pkg-raw/qr_wasm_raw.wasm')));
  instance = new QrWasmRaw(module_);
}

function replaceInstance() {
  instance = new QrWasmRaw(module_);
}

function generateQrCode(text, { signal } = {}) {
  return queue.run(() => withTrapRecovery(() => instance.generateQrCode(text), replaceInstance), { signal });
}

/** The current instance's memory size, for the leak test. */
function memoryBytes() {
  return instance.memoryBytes;
}

module.exports = { start, generateQrCode, memoryBytes };
