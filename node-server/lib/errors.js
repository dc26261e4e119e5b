'use strict';

// Errors every tier throws, and how the HTTP layer answers them.
// The Rust core's codes (qr_lib::QrError::code) arrive as `err.code` from the
// addon and are rebuilt from its numbers (QrError::number) by the stdio and
// raw-Wasm tiers; `status` follows the http-errors convention.

const GENERATION_FAILED = 'failed generating qr code';
const SERVER_BUSY = 'server busy';
const RETRY_AFTER_SECONDS = 1;

// qr_lib::QrError in number order; index = number - 1.
const CORE_ERROR_CODES = ['EMPTY_TEXT', 'TEXT_TOO_LONG', 'INVALID_UTF8', 'ENCODING_FAILED'];
const INPUT_ERROR_CODES = new Set(['EMPTY_TEXT', 'TEXT_TOO_LONG', 'INVALID_UTF8']);

class QrError extends Error {
  constructor(code, message, { status, expose, headers, cause } = {}) {
    super(message, { cause });
    this.name = 'QrError';
    this.code = code;
    if (status !== undefined) this.status = status;
    // A 5xx message is shown to the client only when it is a fixed text.
    if (expose !== undefined) this.expose = expose;
    if (headers !== undefined) this.headers = headers;
  }
}

/** A bounded queue is full: 503 with a hint when to come back. */
function serverBusy() {
  return new QrError('SERVER_BUSY', SERVER_BUSY, {
    status: 503,
    expose: true,
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  });
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

module.exports = { QrError, coreError, serverBusy, httpResponseFor, GENERATION_FAILED, SERVER_BUSY, RETRY_AFTER_SECONDS, CORE_ERROR_CODES };
