'use strict';

const http = require('node:http');

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

module.exports = { get, qrcodePath, agent };
