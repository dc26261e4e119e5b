'use strict';

// The work done by an HTTP server elsewhere (a Rust service behind this one):
// calls go over a pool of keep-alive connections, as many at once as it has
// connections; the rest wait here, bounded, instead of in undici's unbounded
// queue. The upstream speaks the same contract: its 4xx and 503 pass through,
// other failures become fixed 5xx texts.
const { Pool, errors } = require('undici');
const { Limiter } = require('./bounded-limiter');
const { TierError, serverBusy } = require('./errors');
const { closedError } = require('./closing');

/**
 * @param {{ url: string, path: (input: any) => string, name?: string, connections?: number, maxQueue?: number,
 *   timeoutMs?: number, keepAliveTimeoutMs?: number }} options
 *   path: the request path for an input (`GET url + path(input)`).
 *   name: in the 502/504 texts: "<name> unavailable", "<name> timed out".
 *   timeoutMs: headers and body each; seconds mean the upstream is stuck.
 *   keepAliveTimeoutMs: below the upstream's idle timeout, so we never send on
 *   a connection it is closing.
 */
function createHttpUpstreamTier({
  url,
  path,
  name = 'upstream',
  connections = 256,
  maxQueue = 512,
  timeoutMs = 5_000,
  keepAliveTimeoutMs = 4_000,
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
    const { statusCode, body } = response;
    // A Buffer over the ArrayBuffer undici filled: no second copy.
    let bytes;
    try {
      bytes = Buffer.from(await body.arrayBuffer());
    } catch (err) {
      throw signal?.aborted ? err : upstreamError(name, err);
    }
    if (statusCode === 200) return bytes;
    if (statusCode === 503) throw serverBusy();
    const status = statusCode < 500 ? statusCode : 500;
    throw new TierError('UPSTREAM_ERROR', bytes.toString('utf8'), { status });
  };

  return {
    /** @param {any} input @param {{ signal?: AbortSignal, priority?: 'low' | 'normal' }} [options] @returns {Promise<Buffer>} */
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

function upstreamError(name, cause) {
  if (cause instanceof errors.HeadersTimeoutError || cause instanceof errors.BodyTimeoutError) {
    return new TierError('UPSTREAM_TIMEOUT', `${name} timed out`, { status: 504, expose: true, cause });
  }
  return new TierError('UPSTREAM_UNAVAILABLE', `${name} unavailable`, { status: 502, expose: true, cause });
}

module.exports = { createHttpUpstreamTier };
