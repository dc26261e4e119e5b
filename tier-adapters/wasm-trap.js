'use strict';

const path = require('node:path');
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

/**
 * A wasm-bindgen module (the `nodejs` target's glue file, `glue`) that a
 * trap replaces: `call(exports => exports.fn(input))` runs against the
 * current instance, and a trap loads the glue afresh (a fresh require is a
 * fresh instance with fresh memory) and throws WASM_TRAP.
 * @param {string} glue @param {string} [name]
 * @returns {<T>(call: (exports: Record<string, (...args: unknown[]) => unknown>) => T) => T}
 */
function loadWasmBindgen(glue, name = path.basename(glue, '.js')) {
  let exports;
  const instantiate = () => {
    delete require.cache[require.resolve(glue)];
    exports = require(glue);
  };
  instantiate();
  return (call) => withTrapRecovery(() => call(exports), instantiate, name);
}

module.exports = { withTrapRecovery, loadWasmBindgen };
