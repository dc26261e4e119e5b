'use strict';

// The core's errors (core/src/lib.rs) as JS errors: a bad input is the
// client's fault (400); anything else is ours (500, fixed text).
const { TierError } = require('tier-adapters');

// core::Error::number order; index = number - 1.
const CODES = ['EMPTY_INPUT', 'INPUT_TOO_LONG', 'INVALID_UTF8', 'INVALID_INPUT'];

/** An error from a Rust tier: `code` from napi and Wasm, a number from the CLI's frames. */
function coreError(codeOrNumber, message) {
  const code = typeof codeOrNumber === 'number' ? CODES[codeOrNumber - 1] : codeOrNumber;
  return CODES.includes(code)
    ? new TierError(code, message, { status: 400 })
    : new TierError(code ?? 'FAILED', message);
}

/** How the service answers these errors (tier-adapters/server's httpResponseFor). */
const ANSWERS = { clientErrors: CODES, failedText: '{{name}} failed' };

module.exports = { coreError, ANSWERS, CODES };
