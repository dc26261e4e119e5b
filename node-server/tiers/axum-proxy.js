'use strict';

// Tier 4: express forwards the work to qr_server over keep-alive connections.
// Either node-server owns the upstream (starts it on a free loopback port and
// restarts it if it dies) or `--upstream URL` names one run elsewhere.
const { Pool } = require('undici');
const { QrError } = require('../lib/errors');
const { startQrServer, stopChild } = require('../lib/qr-server-process');

const UPSTREAM_UNAVAILABLE = 'qr upstream unavailable';
const RESTART_DELAY_MS = 100;

let pool;
let owned; // the qr_server child, when node-server started it
let closing = false;

async function start({ upstream } = {}) {
  if (upstream) {
    pool = newPool(upstream);
  } else {
    await startOwnedUpstream();
  }
}

async function startOwnedUpstream() {
  const { child, url } = await startQrServer();
  owned = child;
  const previous = pool;
  pool = newPool(url);
  previous?.destroy();
  child.once('exit', (code, signal) => {
    if (closing) return;
    console.error(`qr_server ${child.pid} exited with ${signal ?? code}; restarting it`);
    setTimeout(() => startOwnedUpstream().catch((err) => console.error(err.message)), RESTART_DELAY_MS).unref();
  });
}

function newPool(url) {
  return new Pool(url, {
    connections: 256,
    keepAliveTimeout: 30_000,
    connectTimeout: 2_000,
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
}

async function generateQrCode(text) {
  let response;
  try {
    response = await pool.request({ method: 'GET', path: `/qrcode?text=${encodeURIComponent(text)}` });
  } catch (cause) {
    throw new QrError('UPSTREAM_UNAVAILABLE', UPSTREAM_UNAVAILABLE, { status: 502, expose: true, cause });
  }
  const { statusCode, body } = response;
  // Buffer over the ArrayBuffer undici filled: no second copy.
  const bytes = Buffer.from(await body.arrayBuffer());
  if (statusCode === 200) return bytes;
  // The upstream speaks the same contract: pass its 4xx on, keep 5xx generic.
  const status = statusCode < 500 ? statusCode : 500;
  throw new QrError('UPSTREAM_ERROR', bytes.toString('utf8'), { status });
}

async function close() {
  closing = true;
  await pool?.close();
  if (owned) await stopChild(owned);
}

/** Options for cluster workers: share one upstream started by the primary. */
async function startShared() {
  const { child, url } = await startQrServer();
  owned = child;
  return { upstream: url, close: () => stopChild(child) };
}

module.exports = { start, generateQrCode, close, startShared };
