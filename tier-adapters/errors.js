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

module.exports = { TierError, serverBusy, SERVER_BUSY, RETRY_AFTER_SECONDS };
