'use strict';

// qr_ffi loaded with Bun's bun:ffi: the same contract as node.cjs.
function loadQrFfi(libraryPath) {
  const { dlopen, toBuffer } = require('bun:ffi');
  const { symbols } = dlopen(libraryPath, {
    qr_generate: { args: ['ptr', 'u64', 'ptr', 'ptr'], returns: 'u32' },
    qr_free: { args: ['ptr', 'u64'], returns: 'void' },
  });
  // The library writes the result's pointer and length here: two u64s, reused.
  const out = new BigUint64Array(2);
  const outPtr = out.subarray(0, 1);
  const outLen = out.subarray(1);
  return function generateQrCode(text) {
    const bytes = Buffer.from(text, 'utf8');
    // bun:ffi refuses a pointer to no bytes: the library takes null for none.
    const status = symbols.qr_generate(bytes.length ? bytes : null, bytes.length, outPtr, outLen);
    const ptr = Number(out[0]);
    const len = Number(out[1]);
    // A copy: the library's buffer is freed at once (toBuffer refuses a length of 0).
    const result = len ? Buffer.from(toBuffer(ptr, 0, len)) : Buffer.alloc(0);
    symbols.qr_free(ptr, len);
    if (status === 0) return result;
    throw Object.assign(new Error(result.toString('utf8')), { status });
  };
}

module.exports = { loadQrFfi };
