'use strict';

const http = require('node:http');
const net = require('node:net');

const agent = new http.Agent({ keepAlive: true });

/**
 * GET `path` exactly as given (no URL normalisation) from `baseUrl`.
 * @returns {Promise<{ status: number, headers: object, body: Buffer }>}
 */
function get(baseUrl, path) {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, path, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** The request path for a text, percent-encoded as a browser would. */
function qrcodePath(text) {
  return `/qrcode?text=${encodeURIComponent(text)}`;
}

/** GET on a connection of its own: a burst of these arrives all at once. */
function getFresh(baseUrl, path) {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, path, agent: false }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

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

module.exports = { get, getFresh, rawRequest, qrcodePath, agent };
