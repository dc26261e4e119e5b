'use strict';

const { TierError } = require('./errors');

/**
 * Runs `call` against a Wasm instance. A trap leaves the instance's memory in
 * an unknown state, so `replaceInstance` runs and the caller gets a 500-class
 * error; every other error passes through unchanged.
 * @template T @param {() => T} call @param {() => void} replaceInstance @param {string} [name]
 */
function withTrapRecovery(call, replaceInstance, name = 'wasm') {
  try {
    return call();
  } catch (err) {
    if (!(err instanceof WebAssembly.RuntimeError)) throw err;
    replaceInstance();
    throw new TierError('WASM_TRAP', `${name} trapped: ${err.message}`, { cause: err });
  }
}

module.exports = { withTrapRecovery };
