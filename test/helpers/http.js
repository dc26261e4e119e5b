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
    responses.push({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]), head, body: raw.subarray(end + 4, end + 4 + length) });
    at = end + 4 + length;
  }
  return responses;
}

module.exports = { send, get, getFresh, rawRequest, qrcodePath, parseResponses, agent };
