'use strict';

// One JSON object per line on stdout, with pino (an optional peer
// dependency: install it to use `tier-adapters/log`), under the keys
// tracing-subscriber's flattened JSON writes (`timestamp`, `level`,
// `message`, then the event's fields): one log pipeline parses a Node
// service's lines and a Rust server's alike.
const crypto = require('node:crypto');
const pino = require('pino');
const { createLineWriter } = require('./line-writer');

// What a client may send as its request id (nginx's $request_id is 32 hex
// digits); anything else is replaced, so a client cannot forge log lines.
const REQUEST_ID = /^[\w.:-]{1,64}$/;
// Lines a second per kind of refusal or failure; the rest are counted and
// the count rides on the next line let through: a flood of bad requests
// must not become a flood of log lines.
const LINES_PER_SECOND = 20;

/**
 * @param {{ access?: boolean, fd?: number }} [options] access: a line per
 *   request; fd: where the lines go (1, stdout).
 */
function createLog({ access = false, fd = 1 } = {}) {
  // A thread of its own writes the lines (line-writer.js): a reader that
  // stops reading stalls it, never the event loop; past 8 MiB waiting,
  // lines are dropped and counted.
  const writer = createLineWriter({ fd });
  const logger = pino(
    {
      // No pid or hostname on every line: a start line can carry the pid.
      base: undefined,
      messageKey: 'message',
      timestamp: () => `,"timestamp":"${new Date().toISOString()}"`,
      formatters: { level: (label) => ({ level: label.toUpperCase() }) },
    },
    writer,
  );
  const windows = new Map(); // kind -> { second, lines, suppressed }

  /** A line of `kind`, unless this second's are spent. */
  function limited(kind, level, fields, message) {
    const second = Math.floor(Date.now() / 1000);
    let window = windows.get(kind);
    if (!window) {
      window = { second, lines: 0, suppressed: 0 };
      windows.set(kind, window);
    }
    if (window.second !== second) Object.assign(window, { second, lines: 0 });
    if (window.lines >= LINES_PER_SECOND) return void window.suppressed++;
    window.lines++;
    const suppressed = window.suppressed;
    window.suppressed = 0;
    logger[level](suppressed ? { ...fields, suppressed } : fields, message);
  }

  return {
    logger,
    access,
    /** Lines dropped: past the bound, a reader that stopped reading, or one that hung up. */
    dropped: writer.dropped,
    /** Resolves true once every line is written, false after `ms`: before an exit. */
    flush: writer.flush,
    info: (fields, message) => logger.info(fields, message),
    warn: (fields, message) => logger.warn(fields, message),
    error: (fields, message) => logger.error(fields, message),
    /** The request's id: the one it came with (X-Request-Id), or a new one; the same for every line of the request. */
    requestId(req) {
      if (req.id) return req.id;
      const given = req.headers['x-request-id'];
      req.id = typeof given === 'string' && REQUEST_ID.test(given) ? given : crypto.randomUUID();
      return req.id;
    },
    /**
     * A request refused 503 (`queue_full`), a connection refused at the cap, or closed for pipelining
     * too far ahead.
     */
    refused(reason, fields = {}) {
      limited(`refused ${reason}`, 'warn', { event: 'refused', reason, ...fields }, `refused (${reason})`);
    },
    /** A request answered 5xx other than 503. */
    failed(fields, message) {
      limited('failed', 'error', { event: 'failed', ...fields }, message);
    },
  };
}

module.exports = { createLog, LINES_PER_SECOND };
