'use strict';

// qr_server's operator surfaces and fairness, the real binary on real
// loopback sockets: GET /metrics answered only on the operator's listener
// (--metrics-host/--metrics-port), never on the public port; one client
// address holding its whole share of the connections
// (--max-connections-per-client) while another address is still served,
// and the share given back when its connections close.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const { startTier } = require('../helpers/servers');
const { getFresh, qrcodePath } = require('../helpers/http');

const PER_CLIENT = 8;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The operator's listener, from qr_server's start log line (`... metrics on http://ADDR/metrics`). */
function operatorOrigin(server) {
  const match = /metrics on (http:\/\/[^\s"]+)\/metrics/.exec(server.output());
  assert.ok(match, `no metrics URL in the start line of:\n${server.output()}`);
  return match[1];
}

/** A connection from `localAddress` (any of 127/8 is this host's) that sends nothing yet. */
function open(url, localAddress) {
  const { hostname, port } = new URL(url);
  const socket = net.connect({ host: hostname, port: Number(port), localAddress });
  const chunks = [];
  socket.on('data', (c) => chunks.push(c));
  socket.on('error', () => {});
  const closed = new Promise((resolve) => socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1'))));
  const connected = new Promise((resolve) => socket.once('connect', resolve));
  return { socket, chunks, closed, connected };
}

/** The status line of one GET /qrcode from `localAddress`. */
async function qrcodeFrom(url, localAddress, text) {
  const connection = open(url, localAddress);
  await connection.connected;
  connection.socket.write(`GET ${qrcodePath(text)} HTTP/1.1\r\nHost: qr\r\nConnection: close\r\n\r\n`);
  return (await connection.closed).split('\r\n')[0];
}

describe('qr_server: /metrics only on the operator\'s listener', () => {
  it('answers /metrics on --metrics-port and 404 on the public port', async () => {
    const server = await startTier('axum');
    try {
      const operator = operatorOrigin(server);
      assert.equal(new URL(operator).hostname, '127.0.0.1', 'loopback by default');
      assert.notEqual(new URL(operator).port, new URL(server.url).port);
      assert.equal((await getFresh(server.url, qrcodePath('public'))).status, 200);
      const onPublic = await getFresh(server.url, '/metrics');
      assert.equal(onPublic.status, 404);
      const scraped = await getFresh(operator, '/metrics');
      assert.equal(scraped.status, 200);
      assert.match(scraped.body.toString(), /^http_requests_total\{route="\/qrcode",status="200",tier="axum"\} 1$/m);
      assert.match(scraped.body.toString(), /^qr_refusals_total\{reason="client_cap"\} 0$/m);
      assert.equal((await getFresh(operator, '/healthz')).status, 200);
      // Only what operators read: no QR codes there.
      assert.equal((await getFresh(operator, qrcodePath('operator'))).status, 404);
    } finally {
      await server.stop();
    }
  });
});

describe('qr_server: one client\'s share of the connections', () => {
  it(`refuses a client past ${PER_CLIENT} connections while another address is served`, async () => {
    const server = await startTier('axum', { args: ['--max-connections-per-client', String(PER_CLIENT), '--max-connections', '64'] });
    const held = [];
    try {
      // The hog opens its whole share and sends nothing.
      for (let i = 0; i < PER_CLIENT; i++) {
        const connection = open(server.url, '127.0.0.1');
        held.push(connection);
        await connection.connected;
      }
      await sleep(200);
      assert.ok(held.every((c) => c.chunks.length === 0), 'a connection within the share was answered');
      // One more from the same address: 503 and closed.
      const past = open(server.url, '127.0.0.1');
      const refusal = await past.closed;
      assert.match(refusal, /^HTTP\/1\.1 503 /);
      assert.match(refusal, /server busy$/);
      // Another client is served meanwhile.
      assert.equal(await qrcodeFrom(server.url, '127.0.0.2', 'another client'), 'HTTP/1.1 200 OK');
      // The hog's share comes back as its connections close.
      held.pop().socket.destroy();
      await sleep(100);
      assert.equal(await qrcodeFrom(server.url, '127.0.0.1', 'the hog again'), 'HTTP/1.1 200 OK');
      const metrics = (await getFresh(operatorOrigin(server), '/metrics')).body.toString();
      assert.match(metrics, /^qr_refusals_total\{reason="client_cap"\} 1$/m);
      assert.match(metrics, /^qr_refusals_total\{reason="connection_cap"\} 0$/m);
    } finally {
      for (const { socket } of held) socket.destroy();
      await server.stop();
    }
  });
});
