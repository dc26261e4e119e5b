'use strict';

const express = require('express');
const path = require('node:path');
const { monitorEventLoopDelay } = require('node:perf_hooks');
const { textParam } = require('./lib/text-param');
const { httpResponseFor } = require('./lib/errors');
const { refuseLongUris } = require('./lib/http-limits');
const { wasmDir } = require('./lib/wasm-files');

const PUBLIC = path.join(__dirname, 'public');

const TEXT_PLAIN = 'text/plain; charset=utf-8';
// The delay monitor's timer period. Each sample is the whole gap between two
// timer ticks, so an idle loop reads this much: it is subtracted below.
const LOOP_RESOLUTION_MS = 1;

/**
 * The express app around one tier's `generateQrCode(text, { signal }) -> Promise<Buffer>`;
 * `tier` is the tier actually running (what `auto` chose), /healthz reports it.
 * @param {{ tier: string, generateQrCode: (text: string, options: { signal: AbortSignal }) => Promise<Buffer> }} options
 */
function createApp({ tier, generateQrCode }) {
  const app = express();
  // Per-response work the hot path does not need: a body hash for ETag.
  app.set('etag', false);
  app.set('x-powered-by', false);

  const eventLoopDelay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  eventLoopDelay.enable();

  app.use(refuseLongUris);

  app.get('/qrcode', async (req, res) => {
    const param = textParam(req.originalUrl);
    if (param.error) return res.status(400).type(TEXT_PLAIN).send(param.error);
    // A client that goes away takes its queued (or cancellable) work with it.
    const abort = new AbortController();
    res.once('close', () => res.writableFinished || abort.abort());
    try {
      const png = await generateQrCode(param.text, { signal: abort.signal });
      res.type('image/png').send(png);
    } catch (err) {
      if (abort.signal.aborted) return; // nobody left to answer
      const [status, body, headers] = httpResponseFor(err);
      if (status >= 500 && status !== 503) console.error(`qrcode failed (${tier}):`, err.message);
      res.status(status).set(headers).type(TEXT_PLAIN).send(body);
    }
  });

  // The page: the same text made into a QR code by the Wasm build in the
  // browser (qr_wasm/pkg-web, `scripts/build-wasm.sh`) and by this tier.
  app.get('/', (req, res) => res.sendFile(path.join(PUBLIC, 'index.html')));
  app.use('/assets', express.static(PUBLIC, { index: false }));
  app.use('/wasm', express.static(path.join(wasmDir(), 'pkg-web'), { index: false }));

  app.get('/healthz', (req, res) => {
    res.json({ tier, pid: process.pid });
  });

  // Event-loop delay since the last reset, in ms beyond the timer period;
  // `?reset=1` starts a new window. Clustered, each worker answers for itself.
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

  return app;
}

module.exports = { createApp };
