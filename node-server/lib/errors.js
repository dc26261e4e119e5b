'use strict';

// Errors every tier throws, and how the HTTP layer answers them.
// The Rust core's codes (qr_lib::QrError::code) arrive as `err.code` from the
// addon and are rebuilt from its numbers (QrError::number) by the stdio and
// raw-Wasm tiers; `status` follows the http-errors convention.

const { TierError } = require('tier-adapters');

const GENERATION_FAILED = 'failed generating qr code';

// qr_lib::QrError in number order; index = number - 1.
const CORE_ERROR_CODES = ['EMPTY_TEXT', 'TEXT_TOO_LONG', 'INVALID_UTF8', 'ENCODING_FAILED'];
const INPUT_ERROR_CODES = new Set(['EMPTY_TEXT', 'TEXT_TOO_LONG', 'INVALID_UTF8']);
// The status of a panic caught at a Rust boundary (qr_ffi's PANIC, qr_cli --serve's PANIC).
const PANIC_STATUS = 255;

/** An error of the QR function; the adapters' own errors are TierErrors with the same fields. */
class QrError extends TierError {
  constructor(code, message, options) {
    super(code, message, options);
    this.name = 'QrError';
  }
}

/** A core error from its number (or PANIC_STATUS), with the message the core sent along. */
function coreError(number, message) {
  if (number === PANIC_STATUS) return new QrError('PANIC', message);
  return new QrError(CORE_ERROR_CODES[number - 1] ?? 'ENCODING_FAILED', message);
}

/** How the HTTP layer answers these errors (tier-adapters/server's httpResponseFor). */
const ANSWERS = { clientErrors: [...INPUT_ERROR_CODES], failedText: GENERATION_FAILED };

module.exports = { QrError, coreError, ANSWERS, GENERATION_FAILED, CORE_ERROR_CODES, PANIC_STATUS };
