'use strict';

// The work done by an HTTP server elsewhere (a Rust service behind this one):
// calls go over a pool of keep-alive connections, as many at once as it has
// connections; the rest wait here, bounded, instead of in undici's unbounded
// queue. The upstream speaks the same contract: its 4xx and 503 pass through,
// other failures become fixed 5xx texts.
// The package's file, not the bare name: Bun answers `require('undici')` with
// a built-in stand-in whose Pool.request does nothing (oven-sh/bun#7920). On
// Node both name the same module.
const { Pool, errors } = require('undici/index.js');
const { Limiter } = require('./bounded-limiter');
const { TierError, serverBusy } = require('./errors');
const { closedError } = require('./closing');

// The longest answer read from the upstream unless the caller says otherwise.
const MAX_BODY_BYTES = 16 << 20;

/**
 * @param {{ url: string, path: (input: any) => string, name?: string, connections?: number, maxQueue?: number,
 *   timeoutMs?: number, keepAliveTimeoutMs?: number, maxBodyBytes?: number }} options
 *   path: the request path for an input (`GET url + path(input)`).
 *   name: in the 502/504 texts: "<name> unavailable", "<name> timed out".
 *   timeoutMs: headers and body each; seconds mean the upstream is stuck.
 *   keepAliveTimeoutMs: below the upstream's idle timeout, so we never send on
 *   a connection it is closing.
 *   maxBodyBytes: a longer answer is a failure (502), read no further
 *   (default 16 MiB): an upstream gone wrong must not fill this process.
 */
function createHttpUpstreamTier({
  url,
  path,
  name = 'upstream',
  connections = 256,
  maxQueue = 512,
  timeoutMs = 5_000,
  keepAliveTimeoutMs = 4_000,
  maxBodyBytes = MAX_BODY_BYTES,
}) {
  const limiter = new Limiter({ concurrency: connections, maxQueue });
  const pool = new Pool(url, {
    connections,
    keepAliveTimeout: keepAliveTimeoutMs,
    connectTimeout: 2_000,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  let closed = false;

  const request = (input, signal) => pool.request({ method: 'GET', path: path(input), signal });

  const forward = async (input, signal) => {
    let response;
    try {
      response = await request(input, signal);
    } catch (err) {
      if (signal?.aborted) throw err;
      // A kept-alive connection the upstream closed just as we sent on it
      // (restart, idle timeout): GET is idempotent, send it once more.
      if (!(err instanceof errors.SocketError)) throw upstreamError(name, err);
      try {
        response = await request(input, signal);
      } catch (again) {
        throw signal?.aborted ? again : upstreamError(name, again);
      }
    }
    const { statusCode, headers, body } = response;
    let bytes;
    try {
      bytes = await readBounded(body, Number(headers['content-length'] ?? 0), maxBodyBytes);
    } catch (err) {
      throw signal?.aborted ? err : upstreamError(name, err);
    }
    if (statusCode >= 200 && statusCode < 300) return bytes;
    if (statusCode === 503) throw serverBusy();
    if (statusCode >= 400 && statusCode < 500) {
      throw new TierError('UPSTREAM_ERROR', bytes.toString('utf8'), { status: statusCode });
    }
    // Other 5xx: a fixed text, not the upstream's. 1xx (but those undici
    // handles) and 3xx: no answer of the contract, a failure too (502).
    const status = statusCode >= 500 ? 500 : 502;
    throw new TierError('UPSTREAM_ERROR', `${name} answered ${statusCode}`, { status });
  };

  return {
    /**
     * @param {any} input
     * @param {{ signal?: AbortSignal, priority?: 'low' | 'normal' }} [options]
     * @returns {Promise<Buffer>}
     */
    run(input, { signal, priority } = {}) {
      if (closed) return Promise.reject(closedError());
      return limiter.run(() => forward(input, signal), signal, { priority });
    },
    /** Calls handed over and not yet settled. */
    get running() {
      return limiter.active;
    },
    /** Calls waiting for a slot. */
    get queued() {
      return limiter.size;
    },
    async close() {
      closed = true;
      await pool.close();
    },
  };
}

/** The body, or a failure once it passes `max` bytes (said in its header, or counted). */
async function readBounded(body, announced, max) {
  if (announced > max) {
    body.destroy();
    throw new BodyTooLargeError(announced, max);
  }
  const chunks = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > max) {
      body.destroy();
      throw new BodyTooLargeError(total, max);
    }
    chunks.push(chunk);
  }
  // One chunk (the usual answer): no copy.
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total);
}

class BodyTooLargeError extends Error {
  constructor(bytes, max) {
    super(`an answer of ${bytes} bytes or more, past the limit of ${max}`);
    this.code = 'UPSTREAM_BODY_TOO_LARGE';
  }
}

function upstreamError(name, cause) {
  if (cause instanceof errors.HeadersTimeoutError || cause instanceof errors.BodyTimeoutError) {
    return new TierError('UPSTREAM_TIMEOUT', `${name} timed out`, { status: 504, expose: true, cause });
  }
  return new TierError('UPSTREAM_UNAVAILABLE', `${name} unavailable`, { status: 502, expose: true, cause });
}

module.exports = { createHttpUpstreamTier };
