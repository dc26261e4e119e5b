'use strict';

// Errors the adapters throw. `status` and `expose` follow the http-errors
// convention, so any HTTP layer can answer them; `code` is for programs.

const SERVER_BUSY = 'server busy';
const RETRY_AFTER_SECONDS = 1;

class TierError extends Error {
  /**
   * @param {string} code
   * @param {string} message
   * @param {{ status?: number, expose?: boolean, headers?: Record<string, string>, cause?: unknown }} [options]
   */
  constructor(code, message, { status, expose, headers, cause } = {}) {
    super(message, { cause });
    this.name = 'TierError';
    this.code = code;
    if (status !== undefined) this.status = status;
    // A 5xx message is shown to a client only when it is a fixed text.
    if (expose !== undefined) this.expose = expose;
    if (headers !== undefined) this.headers = headers;
  }
}

/** A bounded queue is full: 503 with a hint when to come back. */
function serverBusy() {
  return new TierError('SERVER_BUSY', SERVER_BUSY, {
    status: 503,
    expose: true,
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  });
}

/**
 * The answer to an error a tier threw: `[status, body, headers]`. Its own
 * `status` first; else a code in `clientErrors` (a bad input: what a Rust
 * binding's error carries, a code and no status) is 400, anything else 500.
 * A 5xx body is `failedText`, never the error's own message (internal
 * detail), unless the error says its message is a fixed text (`expose`).
 * @param {{ code?: string, message?: string, status?: number, expose?: boolean,
 *   headers?: Record<string, string> }} err
 * @param {{ clientErrors?: readonly string[], failedText?: string }} [options]
 * @returns {[number, string, Record<string, string>]}
 */
function httpResponseFor(err, { clientErrors = [], failedText = 'internal error' } = {}) {
  const status = err.status ?? (clientErrors.includes(err.code) ? 400 : 500);
  const body = status < 500 || err.expose ? (err.message ?? '') : failedText;
  return [status, body, err.headers ?? {}];
}

module.exports = { TierError, serverBusy, httpResponseFor, SERVER_BUSY, RETRY_AFTER_SECONDS };
