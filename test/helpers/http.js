'use strict';

const http = require('node:http');
const net = require('node:net');

const agent = new http.Agent({ keepAlive: true });

/**
 * GET `path` exactly as given (no URL normalisation) from `baseUrl` over
 * `httpAgent` (false: a connection of its own); `flushed` settles once the
 * request is handed to the kernel.
 * @returns {{ flushed: Promise<void>, response: Promise<{ status: number, headers: object, body: Buffer }> }}
 */
function send(baseUrl, path, httpAgent) {
  const { hostname, port } = new URL(baseUrl);
  const req = http.request({ host: hostname, port, path, agent: httpAgent });
  const flushed = new Promise((resolve) => req.once('finish', resolve));
  const response = new Promise((resolve, reject) => {
    req.on('response', (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
  });
  req.end();
  return { flushed, response };
}

/** GET over a shared keep-alive agent. */
const get = (baseUrl, path) => send(baseUrl, path, agent).response;

/** The request path for a text, percent-encoded as a browser would. */
function qrcodePath(text) {
  return `/qrcode?text=${encodeURIComponent(text)}`;
}

/** GET on a connection of its own: a burst of these arrives all at once. */
const getFresh = (baseUrl, path) => send(baseUrl, path, false).response;

/**
 * Writes raw bytes on a new connection and reads until the server closes it.
 * @returns {Promise<{ status: number, body: string }>}
 */
function rawRequest(baseUrl, data) {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks = [];
    socket.on('data', (c) => chunks.push(c));
    // The server may answer and close before it has read everything we sent.
    socket.on('error', (err) => (chunks.length ? null : reject(err)));
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const [head, ...body] = text.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]), body: body.join('\r\n\r\n') });
    });
    socket.end(data);
  });
}

/** Splits raw HTTP/1.1 responses (Content-Length framed) read from one connection. */
function parseResponses(raw) {
  const responses = [];
  let at = 0;
  while (at < raw.length) {
    const end = raw.indexOf('\r\n\r\n', at);
    if (end === -1) break;
    const head = raw.toString('latin1', at, end);
    const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    if (end + 4 + length > raw.length) break;
    responses.push({
      status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]),
      head,
      body: raw.subarray(end + 4, end + 4 + length),
    });
    at = end + 4 + length;
  }
  return responses;
}

// A second client's waits while an attack runs (victim below): their bounds.
const VICTIM_P50_MS = 100;
// The machine is shared and noisy: the worst single wait gets slack.
const VICTIM_MAX_MS = 1000;

/** A well-behaved client polling while an attack runs: its latencies and statuses. */
function victim(url, { every = 50 } = {}) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const latencies = [];
  const statuses = [];
  let running = true;
  const done = (async () => {
    for (let i = 0; running; i++) {
      const started = performance.now();
      const { hostname, port } = new URL(url);
      const status = await new Promise((resolve) => {
        const req = http.get({ host: hostname, port, path: qrcodePath(`victim ${i}`), agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode));
        });
        req.on('error', (err) => resolve(err.code));
      });
      latencies.push(performance.now() - started);
      statuses.push(status);
      await new Promise((resolve) => setTimeout(resolve, every));
    }
    agent.destroy();
  })();
  return {
    async stop() {
      running = false;
      await done;
      const sorted = [...latencies].sort((a, b) => a - b);
      return { statuses, p50: sorted[sorted.length >> 1], max: sorted.at(-1), count: sorted.length };
    },
  };
}

module.exports = {
  send,
  get,
  getFresh,
  rawRequest,
  qrcodePath,
  parseResponses,
  agent,
  victim,
  VICTIM_P50_MS,
  VICTIM_MAX_MS,
};
