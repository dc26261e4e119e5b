'use strict';

// qr_ffi loaded with Node's node:ffi (Node 26): `generateQrCode(text)` gives
// the PNG as a Buffer, or throws an Error whose `status` is the library's
// (1-4 the core's QrError::number, 255 a caught panic) and whose message is
// the core's. node:ffi is required here, not before: loading it prints
// Node's experimental-feature warning.
function loadQrFfi(libraryPath) {
  const ffi = require('node:ffi');
  const { functions } = ffi.dlopen(libraryPath, {
    qr_generate: { return: 'u32', arguments: ['buffer', 'u64', 'buffer', 'buffer'] },
    qr_free: { return: 'void', arguments: ['pointer', 'u64'] },
  });
  // The library writes the result's pointer and length here: two u64s, reused.
  const out = Buffer.alloc(16);
  const outPtr = out.subarray(0, 8);
  const outLen = out.subarray(8);
  return function generateQrCode(text) {
    const bytes = Buffer.from(text, 'utf8');
    const status = functions.qr_generate(bytes, BigInt(bytes.length), outPtr, outLen);
    const ptr = out.readBigUInt64LE(0);
    const len = out.readBigUInt64LE(8);
    // A copy: the library's buffer is freed at once.
    const result = ffi.toBuffer(ptr, Number(len), true);
    functions.qr_free(ptr, len);
    if (status === 0) return result;
    throw Object.assign(new Error(result.toString('utf8')), { status });
  };
}

module.exports = { loadQrFfi };
