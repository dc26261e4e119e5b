'use strict';

// The core's errors (core/src/lib.rs) as JS errors: a bad input is the
// client's fault (400); anything else is ours (500, fixed text).
const { TierError } = require('tier-adapters');

// core::Error::number order; index = number - 1.
const CODES = ['EMPTY_INPUT', 'INPUT_TOO_LONG', 'INVALID_UTF8', 'INVALID_INPUT'];
// The status of a panic caught at the boundary (ffi/src/boundary.rs, cli/src/serve.rs).
const PANIC_STATUS = 255;

/** The code of a status from the CLI's frames or the C ABI. */
const codeOf = (status) => (status === PANIC_STATUS ? 'PANIC' : CODES[status - 1]);

/** An error from a Rust tier: `code` from napi and Wasm, a status from the CLI's frames and the C ABI. */
function coreError(codeOrStatus, message) {
  const code = typeof codeOrStatus === 'number' ? codeOf(codeOrStatus) : codeOrStatus;
  return CODES.includes(code)
    ? new TierError(code, message, { status: 400 })
    : new TierError(code ?? 'FAILED', message);
}

/** How the service answers these errors (tier-adapters/server's httpResponseFor). */
const ANSWERS = { clientErrors: CODES, failedText: 'ladder-example failed' };

module.exports = { coreError, ANSWERS, CODES };
