#!/usr/bin/env node
'use strict';

// The benchmark's framework-cost reference: the same addon call as tier `napi`
// behind bare `node:http`, no express, one process. Same text rules and error
// answers; none of node-server's limits (it is not a tier to deploy). The gap
// to `napi` in the report is what express and node-server's guards cost.
const http = require('node:http');
const { parseArgs } = require('node:util');
const { loadAddon } = require('../../node-server/lib/addon');
const { textParam } = require('../../node-server/lib/text-param');
const { httpResponseFor } = require('tier-adapters/server');
const { ANSWERS } = require('../../node-server/lib/errors');

const { values } = parseArgs({
  options: { host: { type: 'string', default: '127.0.0.1' }, port: { type: 'string', default: '0' } },
});
const { generateQrCodeSync } = loadAddon();

function answer(res, status, body, headers = {}) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
  res.end(body);
}

const server = http.createServer((req, res) => {
  if (req.method !== 'GET' || !req.url.startsWith('/qrcode')) return answer(res, 404, 'not found');
  const param = textParam(req.url);
  if (param.error) return answer(res, 400, param.error);
  let png;
  try {
    png = generateQrCodeSync(param.text);
  } catch (err) {
    const [status, body, headers] = httpResponseFor(err, ANSWERS);
    return answer(res, status, body, headers);
  }
  res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
  res.end(png);
});

process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  setTimeout(() => server.closeAllConnections(), 1000).unref();
});
server.listen(Number(values.port), values.host, () => {
  const { address, port } = server.address();
  console.log(`napi-node-http listening on http://${address}:${port}`);
});
