'use strict';

// qr_ffi loaded with Deno.dlopen (needs --allow-ffi): the same contract as
// node.cjs.
function loadQrFfi(libraryPath) {
  const { symbols } = Deno.dlopen(libraryPath, {
    qr_generate: { parameters: ['buffer', 'usize', 'buffer', 'buffer'], result: 'u32' },
    qr_free: { parameters: ['pointer', 'usize'], result: 'void' },
  });
  // The library writes the result's pointer and length here: two u64s, reused.
  const out = new BigUint64Array(2);
  const outPtr = out.subarray(0, 1);
  const outLen = out.subarray(1);
  return function generateQrCode(text) {
    const bytes = Buffer.from(text, 'utf8');
    const status = symbols.qr_generate(bytes, bytes.length, outPtr, outLen);
    const ptr = Deno.UnsafePointer.create(out[0]);
    const len = out[1];
    // A copy: the library's buffer is freed at once.
    const result = Buffer.allocUnsafe(Number(len));
    if (len > 0n) new Deno.UnsafePointerView(ptr).copyInto(result);
    symbols.qr_free(ptr, len);
    if (status === 0) return result;
    throw Object.assign(new Error(result.toString('utf8')), { status });
  };
}

module.exports = { loadQrFfi };
