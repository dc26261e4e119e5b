'use strict';

// Loads qr_ffi (the core behind a plain C ABI, qr_ffi/src/lib.rs) with the
// runtime's own FFI (qr_ffi/js/): node:ffi on Node 26, bun:ffi, Deno.dlopen.
// What napi-rs's generated glue does for the `napi` tier, done by the runtime
// from a signature table.
const fs = require('node:fs');
const path = require('node:path');
const { coreError, QrError } = require('./errors');

const LIBRARY = path.resolve(__dirname, '../../target/release/libqr_ffi.so');
const LOADERS = path.resolve(__dirname, '../../qr_ffi/js');
// qr_ffi::QR_PANIC: a panic caught at the boundary.
const PANIC_STATUS = 255;

/** `$QR_FFI_LIB`, or the release build; one clear line when it is not there. */
function libraryPath() {
  const file = process.env.QR_FFI_LIB || LIBRARY;
  if (!fs.existsSync(file)) {
    const fix = 'run `cargo build --release -p qr_ffi` (or `make build`) or set QR_FFI_LIB';
    throw new Error(`qr_ffi library ${file} not found: ${fix}`);
  }
  return file;
}

/** This runtime's loader; on Node, one clear line when it has no node:ffi. */
function runtimeLoader() {
  if (process.versions.bun) return require(path.join(LOADERS, 'bun.cjs'));
  if (process.versions.deno) return require(path.join(LOADERS, 'deno.cjs'));
  if (!require('node:module').isBuiltin('node:ffi')) {
    const fix = 'run Node 26 or later, without --no-experimental-ffi';
    throw new Error(`tier ffi needs node:ffi, which Node ${process.version} does not have: ${fix}`);
  }
  return require(path.join(LOADERS, 'node.cjs'));
}

/** `generateQrCode(text) -> Buffer`, throwing the core's errors as the other tiers do. */
function loadQrFfi(file = libraryPath()) {
  const generate = runtimeLoader().loadQrFfi(file);
  return function generateQrCode(text) {
    try {
      return generate(text);
    } catch (err) {
      if (err.status === PANIC_STATUS) throw new QrError('PANIC', err.message);
      throw err.status ? coreError(err.status, err.message) : err;
    }
  };
}

module.exports = { loadQrFfi, libraryPath };
