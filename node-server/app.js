'use strict';

const express = require('express');
const path = require('node:path');
const { monitorEventLoopDelay } = require('node:perf_hooks');
const { textParam } = require('./lib/text-param');
const { ANSWERS } = require('./lib/errors');
const { refuseLongUris, isInvalidTarget, isPipelined, httpResponseFor } = require('tier-adapters/server');
const { wasmDir } = require('./lib/wasm-files');

const PUBLIC = path.join(__dirname, 'public');

const TEXT_PLAIN = 'text/plain; charset=utf-8';
// The delay monitor's timer period. Each sample is the whole gap between two
// timer ticks, so an idle loop reads this much: it is subtracted below.
const LOOP_RESOLUTION_MS = 1;

/**
 * The express app around one tier's `generateQrCode(text, { signal, priority }) -> Promise<Buffer>`;
 * `tier` is the tier actually running (what `auto` chose), /healthz reports it.
 * A request whose connection pipelines (sends requests before their
 * predecessors are answered: isPipelined) waits behind every other request.
 * `metrics` (lib/metrics.js) counts and times the requests (server.js
 * serves them on the operator's listener, not here); `log`
 * (tier-adapters/log) takes refused and failed requests, and with `log.access`
 * a line per request. `eventLoopRoute` adds the benchmark's GET /metrics/event-loop.
 * @param {{ tier: string,
 *   generateQrCode: (text: string, options: { signal: AbortSignal, priority: 'low' | 'normal' }) => Promise<Buffer>,
 *   metrics?: ReturnType<typeof import('./lib/metrics').createMetrics>,
 *   log?: ReturnType<typeof import('tier-adapters/log').createLog>, eventLoopRoute?: boolean }} options
 */
function createApp({ tier, generateQrCode, metrics, log, eventLoopRoute = false }) {
  const app = express();
  // Per-response work the hot path does not need: a body hash for ETag.
  app.set('etag', false);
  app.set('x-powered-by', false);
  // Paths match exactly, as on qr_server: `/qrcode/` and `/QRCODE` are not `/qrcode`.
  app.set('strict routing', true);
  app.set('case sensitive routing', true);

  app.use(refuseLongUris);

  app.get('/qrcode', async (req, res) => {
    const param = textParam(req.originalUrl);
    if (param.error) return res.status(400).type(TEXT_PLAIN).send(param.error);
    // A client that goes away takes its queued (or cancellable) work with it.
    const abort = new AbortController();
    res.once('close', () => res.writableFinished || abort.abort());
    try {
      // A client that pipelines without reading its answers would otherwise
      // hold a place in the queue ahead of everyone else, request after
      // request. One tick first: the parser is still reading the chunk this
      // request came in, so a pipelining connection's first request counts too.
      await null;
      const priority = isPipelined(req) ? 'low' : 'normal';
      const png = await generateQrCode(param.text, { signal: abort.signal, priority });
      res.type('image/png').send(png);
    } catch (err) {
      if (abort.signal.aborted) return; // nobody left to answer
      const [status, body, headers] = httpResponseFor(err, ANSWERS);
      if (status === 503) {
        metrics?.refused('queue_full');
        log?.refused('queue_full', { request_id: log.requestId(req), tier });
      } else if (status >= 500) {
        log?.failed({ request_id: log?.requestId(req), tier, status, error: err.message }, 'qrcode failed');
      }
      res.status(status).set(headers).type(TEXT_PLAIN).send(body);
    }
  });

  // The page: the same text made into a QR code by the Wasm build in the
  // browser (qr_wasm/pkg-web, `scripts/build-wasm.sh`) and by this tier.
  app.get('/', (_req, res) => res.sendFile(path.join(PUBLIC, 'index.html')));
  app.use('/assets', express.static(PUBLIC, { index: false }));
  app.use('/wasm', express.static(path.join(wasmDir(), 'pkg-web'), { index: false }));

  app.get('/healthz', (_req, res) => {
    res.json({ tier, pid: process.pid });
  });

  // The API's routes answer GET and HEAD; any other method gets 405 with no
  // body, as on qr_server (axum). /metrics is not one: it is on the
  // operator's listener (server.js), and 404 here, as on qr_server's public port.
  for (const route of ['/qrcode', '/healthz']) {
    app.all(route, (_req, res) => res.status(405).set('Allow', 'GET,HEAD').end());
  }

  // The benchmark's route (--event-loop-route), off by default: any client
  // could reset its window. Event-loop delay since the last reset, in ms
  // beyond the timer period; `?reset=1` starts a new window. Clustered, each
  // worker answers for itself.
  if (eventLoopRoute) {
    const eventLoopDelay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    eventLoopDelay.enable();
    app.get('/metrics/event-loop', (req, res) => {
      const ms = (ns) => Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS);
      res.json({
        pid: process.pid,
        resolutionMs: LOOP_RESOLUTION_MS,
        mean: ms(eventLoopDelay.mean),
        p50: ms(eventLoopDelay.percentile(50)),
        p99: ms(eventLoopDelay.percentile(99)),
        max: ms(eventLoopDelay.max),
      });
      if (req.query.reset) eventLoopDelay.reset();
    });
  }

  // What no route took ends here, with no body, as on qr_server: an unknown
  // path (404), or one express cannot parse at all (404: it is no route of
  // ours), or an error a middleware passed on (its status). Not express's
  // final handler, whose HTML pages qr_server has no twin of.
  // The access log: one line per answered request, read from `this` (the
  // response) by one listener shared by all. The path without its query:
  // the text is the user's data.
  function logAccess() {
    const { req } = this;
    const query = req.url.indexOf('?');
    log.info(
      {
        event: 'access',
        request_id: log.requestId(req),
        tier,
        method: req.method,
        path: query < 0 ? req.url : req.url.slice(0, query),
        status: this.statusCode,
        duration_ms: Math.round((performance.now() - this.accessStartedAt) * 1000) / 1000,
      },
      'request',
    );
  }

  const unrouted = (_req, res) => (err) => {
    if (res.headersSent) return res.destroy();
    res.status(err ? (err.status ?? err.statusCode ?? 500) : 404).end();
  };
  return (req, res) => {
    // Before express, which cannot route some of these targets at all:
    // hyper's answer to a target it refuses to parse (docs/request-grammar.md).
    if (isInvalidTarget(req.url)) return res.writeHead(400, { Connection: 'close', 'Content-Length': 0 }).end();
    metrics?.observe(req, res);
    if (log?.access) {
      res.accessStartedAt = performance.now();
      res.on('finish', logAccess);
    }
    app(req, res, unrouted(req, res));
  };
}

module.exports = { createApp };
