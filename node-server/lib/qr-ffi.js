'use strict';

// Loads qr_ffi (the core behind a plain C ABI, qr_ffi/src/lib.rs) with the
// runtime's own FFI, through tier-adapters' loadCAbi: node:ffi on Node 26,
// bun:ffi, Deno.dlopen. What napi-rs's generated glue does for the `napi`
// tier, done by the runtime from a signature table.
const fs = require('node:fs');
const path = require('node:path');
const { loadCAbi } = require('tier-adapters');
const { coreError } = require('./errors');

const LIBRARY = path.resolve(__dirname, '../../target/release/libqr_ffi.so');

/** `$QR_FFI_LIB`, or the release build; one clear line when it is not there. */
function libraryPath() {
  const file = process.env.QR_FFI_LIB || LIBRARY;
  if (!fs.existsSync(file)) {
    const fix = 'run `cargo build --release -p qr_ffi` (or `make build`) or set QR_FFI_LIB';
    throw new Error(`qr_ffi library ${file} not found: ${fix}`);
  }
  return file;
}

/** `generateQrCode(text) -> Buffer`, throwing the core's errors as the other tiers do. */
function loadQrFfi(file = libraryPath()) {
  return loadCAbi({ library: file, call: 'qr_generate', free: 'qr_free', name: 'tier ffi', decodeError: coreError });
}

module.exports = { loadQrFfi, libraryPath };
