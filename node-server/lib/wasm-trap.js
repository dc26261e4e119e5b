'use strict';

const { QrError } = require('./errors');

/**
 * Runs `call` against a Wasm instance. A trap leaves the instance's memory in
 * an unknown state, so `replaceInstance` runs and the caller gets a 500-class
 * error; the core's own errors pass through unchanged.
 */
function withTrapRecovery(call, replaceInstance) {
  try {
    return call();
  } catch (err) {
    if (!(err instanceof WebAssembly.RuntimeError)) throw err;
    replaceInstance();
    throw new QrError('WASM_TRAP', `qr_wasm trapped: ${err.message}`, { cause: err });
  }
}

module.exports = { withTrapRecovery };
