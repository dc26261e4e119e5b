'use strict';

// The operator's listener: GET /metrics (and /healthz) on an address of its
// own, loopback unless the operator says otherwise, so that the public port
// serves only the API, as a Rust server beside it may do (an axum router on a
// listener of its own).
// Bounded like the public server, with room for a scraper or two and an
// operator's curl; a client looping on /metrics costs one collection per
// 250 ms at most (shareCollections), whatever its rate.
const { createHttpServer } = require('./http-server');
const { shareCollections } = require('./cluster-metrics');

// A scraper or two and an operator's curl.
const MAX_CONNECTIONS = 16;
const TEXT_PLAIN = 'text/plain; charset=utf-8';

/**
 * Listens on `host:port` (port 0: any free one) and answers GET or HEAD
 * /metrics with `collect()`'s text, /healthz with `health()` as JSON; any
 * other path 404, any other method 405, both with no body (axum's answers).
 * A failed collection is 503 `metrics unavailable`, passed to `onError`.
 * `observe(req, res)` sees every request first, to count the listener's own
 * answers as the public port's are (as a Rust server's layer around each
 * listener's router does).
 * @param {{ collect: () => Promise<string>, contentType: string, health: () => object,
 *   host?: string, port?: number, onError?: (err: Error) => void,
 *   observe?: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void }} options
 * @returns {Promise<{ url: string, close: () => Promise<void> }>} url: where /metrics is
 */
async function listenMetrics({ collect, contentType, health, host = '127.0.0.1', port = 0, onError, observe }) {
  const exposition = shareCollections(collect);
  const answer = (req, res, status, headers, body = '') => {
    res.writeHead(status, { ...headers, 'Content-Length': Buffer.byteLength(body) });
    res.end(req.method === 'HEAD' ? undefined : body);
  };
  const { server, shutdown } = createHttpServer(
    (req, res) => {
      observe?.(req, res);
      const path = req.url.split('?', 1)[0];
      if (path !== '/metrics' && path !== '/healthz') return answer(req, res, 404);
      if (req.method !== 'GET' && req.method !== 'HEAD') return answer(req, res, 405, { Allow: 'GET,HEAD' });
      const json = { 'Content-Type': 'application/json' };
      if (path === '/healthz') return answer(req, res, 200, json, JSON.stringify(health()));
      exposition().then(
        (text) => answer(req, res, 200, { 'Content-Type': contentType }, text),
        (err) => {
          onError?.(err);
          answer(req, res, 503, { 'Content-Type': TEXT_PLAIN }, 'metrics unavailable');
        },
      );
    },
    { maxConnections: MAX_CONNECTIONS },
  );
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { address, port: bound } = /** @type {import('node:net').AddressInfo} */ (server.address());
  const origin = address.includes(':') ? `[${address}]:${bound}` : `${address}:${bound}`;
  return { url: `http://${origin}/metrics`, close: shutdown };
}

module.exports = { listenMetrics };
