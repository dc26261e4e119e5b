'use strict';

// Loads qr_ffi (the core behind a plain C ABI, qr_ffi/src/lib.rs) with
// node:ffi: what napi-rs's generated glue does for the `napi` tier, done by
// Node itself from a signature table.
const fs = require('node:fs');
const path = require('node:path');
const { coreError, QrError } = require('./errors');

const LIBRARY = path.resolve(__dirname, '../../target/release/libqr_ffi.so');
// qr_ffi::QR_PANIC: a panic caught at the boundary.
const PANIC_STATUS = 255;
const SIGNATURES = {
  qr_generate: { return: 'u32', arguments: ['buffer', 'u64', 'buffer', 'buffer'] },
  qr_free: { return: 'void', arguments: ['pointer', 'u64'] },
};

/** `$QR_FFI_LIB`, or the release build; one clear line when it is not there. */
function libraryPath() {
  const file = process.env.QR_FFI_LIB || LIBRARY;
  if (!fs.existsSync(file)) {
    const fix = 'run `cargo build --release -p qr_ffi` (or `make build`) or set QR_FFI_LIB';
    throw new Error(`qr_ffi library ${file} not found: ${fix}`);
  }
  return file;
}

/** node:ffi, or why this runtime has none (Node before 26, `--no-experimental-ffi`, Bun, Deno). */
function requireFfi() {
  try {
    return require('node:ffi');
  } catch (cause) {
    const runtime = process.versions.bun ? `Bun ${process.versions.bun}`
      : process.versions.deno ? `Deno ${process.versions.deno}` : `Node ${process.version}`;
    const fix = 'run Node 26 or later, without --no-experimental-ffi';
    throw new Error(`tier ffi needs node:ffi, which ${runtime} does not have: ${fix}`, { cause });
  }
}

/** `generateQrCode(text) -> Buffer`, throwing the core's errors as the other tiers do. */
function loadQrFfi(file = libraryPath()) {
  // The file is found first: node:ffi prints an experimental-feature warning once loaded.
  const ffi = requireFfi();
  const { functions } = ffi.dlopen(file, SIGNATURES);
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
    if (status === PANIC_STATUS) throw new QrError('PANIC', result.toString('utf8'));
    throw coreError(status, result.toString('utf8'));
  };
}

module.exports = { loadQrFfi, libraryPath };
