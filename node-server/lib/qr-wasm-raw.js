'use strict';

// A loader for qr_wasm_raw's hand-written ABI (qr_wasm_raw/src/lib.rs): what
// wasm-bindgen's glue does for the `wasm` tier, written out by hand.
const { coreError } = require('./errors');

const encoder = new TextEncoder();

class QrWasmRaw {
  /** @param {WebAssembly.Module} module compiled once, instantiated per QrWasmRaw */
  constructor(module) {
    // The module imports nothing: an empty import object.
    this.exports = new WebAssembly.Instance(module, {}).exports;
    // 8 bytes the module writes the result's pointer and length into; reused.
    this.outPtr = this.exports.qr_alloc(8);
  }

  /** Bytes of the module's memory; re-read after every call, as memory.grow replaces the buffer. */
  bytes(ptr, len) {
    return new Uint8Array(this.exports.memory.buffer, ptr, len);
  }

  generateQrCode(text) {
    const { qr_alloc, qr_free, qr_generate } = this.exports;
    // Memory for exactly this input (UTF-8 bytes, not UTF-16 units).
    const len = Buffer.byteLength(text, 'utf8');
    const textPtr = len ? qr_alloc(len) : 0;
    if (len && !textPtr) throw new Error('qr_wasm_raw: out of memory');
    let status;
    try {
      encoder.encodeInto(text, this.bytes(textPtr, len));
      status = qr_generate(textPtr, len, this.outPtr);
    } finally {
      qr_free(textPtr, len);
    }
    const out = new DataView(this.exports.memory.buffer, this.outPtr, 8);
    const resultPtr = out.getUint32(0, true);
    const resultLen = out.getUint32(4, true);
    // A copy: a Buffer must never alias Wasm memory, which the next call
    // overwrites and a memory.grow detaches.
    const result = Buffer.from(this.bytes(resultPtr, resultLen));
    qr_free(resultPtr, resultLen);
    if (status !== 0) throw coreError(status, result.toString('utf8'));
    return result;
  }

  get memoryBytes() {
    return this.exports.memory.buffer.byteLength;
  }
}

module.exports = { QrWasmRaw };
