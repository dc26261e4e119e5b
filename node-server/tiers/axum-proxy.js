'use strict';

// Tier 4: express forwards the work to qr_server over keep-alive connections.
// Either node-server owns the upstream (starts it on a free loopback port and
// restarts it there if it dies) or `--upstream URL` names one run elsewhere.
const { Pool, errors } = require('undici');
const { QrError, serverBusy } = require('../lib/errors');
const { Limiter } = require('../lib/limiter');
const { superviseQrServer } = require('../lib/qr-server-process');

const UPSTREAM_UNAVAILABLE = 'qr upstream unavailable';
const UPSTREAM_TIMED_OUT = 'qr upstream timed out';
// An answer takes well under a millisecond of work; seconds mean it is stuck.
// Below node-server's 10 s idle timeout, so the client gets the 504.
const UPSTREAM_TIMEOUT_MS = 5_000;

// As many requests at once as the pool has upstream connections; the rest
// wait here, bounded by --max-queue, instead of in undici's unbounded queue.
const UPSTREAM_CONNECTIONS = 256;

let pool;
let limiter;
let owned; // the supervised qr_server, when node-server started it

async function start({ upstream, maxQueue = 512 } = {}) {
  limiter = new Limiter({ concurrency: UPSTREAM_CONNECTIONS, maxQueue });
  if (!upstream) {
    owned = await superviseQrServer();
    upstream = owned.url;
  }
  pool = new Pool(upstream, {
    connections: UPSTREAM_CONNECTIONS,
    keepAliveTimeout: 4_000, // below qr_server's 10 s idle timeout
    connectTimeout: 2_000,
    headersTimeout: UPSTREAM_TIMEOUT_MS,
    bodyTimeout: UPSTREAM_TIMEOUT_MS,
  });
}

function request(text, signal) {
  return pool.request({ method: 'GET', path: `/qrcode?text=${encodeURIComponent(text)}`, signal });
}

function generateQrCode(text, { signal } = {}) {
  return limiter.run(() => forward(text, signal), signal);
}

async function forward(text, signal) {
  let response;
  try {
    response = await request(text, signal);
  } catch (err) {
    if (signal?.aborted) throw err;
    // A kept-alive connection the upstream closed just as we sent on it
    // (restart, idle timeout): GET is idempotent, send it once more.
    if (!(err instanceof errors.SocketError)) throw upstreamError(err);
    try {
      response = await request(text, signal);
    } catch (again) {
      throw signal?.aborted ? again : upstreamError(again);
    }
  }
  const { statusCode, body } = response;
  // Buffer over the ArrayBuffer undici filled: no second copy.
  let bytes;
  try {
    bytes = Buffer.from(await body.arrayBuffer());
  } catch (err) {
    throw signal?.aborted ? err : upstreamError(err);
  }
  if (statusCode === 200) return bytes;
  // The upstream speaks the same contract: pass its 4xx and 503 on, keep other 5xx generic.
  if (statusCode === 503) throw serverBusy();
  const status = statusCode < 500 ? statusCode : 500;
  throw new QrError('UPSTREAM_ERROR', bytes.toString('utf8'), { status });
}

function upstreamError(cause) {
  if (cause instanceof errors.HeadersTimeoutError || cause instanceof errors.BodyTimeoutError) {
    return new QrError('UPSTREAM_TIMEOUT', UPSTREAM_TIMED_OUT, { status: 504, expose: true, cause });
  }
  return new QrError('UPSTREAM_UNAVAILABLE', UPSTREAM_UNAVAILABLE, { status: 502, expose: true, cause });
}

async function close() {
  await pool?.close();
  await owned?.close();
}

/** For cluster mode: the primary supervises one qr_server all workers share. */
async function startShared() {
  const shared = await superviseQrServer();
  return { upstream: shared.url, close: () => shared.close() };
}

module.exports = { start, generateQrCode, close, startShared };
