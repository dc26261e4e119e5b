'use strict';

// Errors every tier throws, and how the HTTP layer answers them.
// The Rust core's codes (qr_lib::QrError::code) arrive as `err.code` from the
// addon and are rebuilt from its numbers (QrError::number) by the stdio and
// raw-Wasm tiers; `status` follows the http-errors convention.

const { TierError, serverBusy, SERVER_BUSY, RETRY_AFTER_SECONDS } = require('tier-adapters');

const GENERATION_FAILED = 'failed generating qr code';

// qr_lib::QrError in number order; index = number - 1.
const CORE_ERROR_CODES = ['EMPTY_TEXT', 'TEXT_TOO_LONG', 'INVALID_UTF8', 'ENCODING_FAILED'];
const INPUT_ERROR_CODES = new Set(['EMPTY_TEXT', 'TEXT_TOO_LONG', 'INVALID_UTF8']);

/** An error of the QR function; the adapters' own errors are TierErrors with the same fields. */
class QrError extends TierError {
  constructor(code, message, options) {
    super(code, message, options);
    this.name = 'QrError';
  }
}

/** A core error from its number, with the message the core sent along. */
function coreError(number, message) {
  return new QrError(CORE_ERROR_CODES[number - 1] ?? 'ENCODING_FAILED', message);
}

/** The response for an error thrown by a tier: [status, body, headers]. */
function httpResponseFor(err) {
  const status = err.status ?? (INPUT_ERROR_CODES.has(err.code) ? 400 : 500);
  // 5xx bodies are fixed texts, never internal details.
  const body = status < 500 || err.expose ? err.message : GENERATION_FAILED;
  return [status, body, err.headers ?? {}];
}

module.exports = {
  QrError,
  coreError,
  serverBusy,
  httpResponseFor,
  GENERATION_FAILED,
  SERVER_BUSY,
  RETRY_AFTER_SECONDS,
  CORE_ERROR_CODES,
};
