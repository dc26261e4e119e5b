'use strict';

// The test-only artifacts of scripts/build-testing.sh (the `testing` cargo
// feature): the same code, except that PANIC_TEXT makes the core panic.
const path = require('node:path');
const { ROOT } = require('./servers');

const DIR = path.join(ROOT, 'target/testing');
const PANIC_TEXT = '__qr_toolkit_panic__';
const NAPI_NODE = path.join(DIR, `napi/qr-napi.${process.platform}-${process.arch}-gnu.node`);

/** Environment that points node-server and the tests at the testing build. */
const TESTING_ENV = {
  QR_CLI_BIN: path.join(DIR, 'testing/qr_cli'),
  QR_SERVER_BIN: path.join(DIR, 'testing/qr_server'),
  QR_WASM_DIR: path.join(DIR, 'wasm'),
  NAPI_RS_NATIVE_LIBRARY_PATH: NAPI_NODE,
  QR_FFI_LIB: path.join(DIR, 'testing/libqr_ffi.so'),
  RUST_BACKTRACE: '0',
};

module.exports = { PANIC_TEXT, TESTING_ENV, NAPI_NODE };
