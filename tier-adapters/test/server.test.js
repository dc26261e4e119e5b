'use strict';

// tier-adapters/server's answers to a tier's errors, and the arrivals a
// server reports to the event-loop tiers, on a real server and connection.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const { setTimeout: sleep } = require('node:timers/promises');
const { createArrivals, TierError } = require('..');
const { createHttpServer, httpResponseFor, isPipelined } = require('../server');

const ANSWERS = { clientErrors: ['EMPTY'], failedText: 'it failed' };

describe('httpResponseFor', () => {
  it("answers an error's own status and headers, its message when below 500", () => {
    const busy = new TierError('BUSY', 'server busy', { status: 503, expose: true, headers: { 'Retry-After': '1' } });
    assert.deepEqual(httpResponseFor(busy, ANSWERS), [503, 'server busy', { 'Retry-After': '1' }]);
    const gone = new TierError('GONE', 'no such thing', { status: 404 });
    assert.deepEqual(httpResponseFor(gone, ANSWERS), [404, 'no such thing', {}]);
  });

  it("answers 400 for a client error's code with no status (a Rust binding's error)", () => {
    const err = Object.assign(new Error('input is empty'), { code: 'EMPTY' });
    assert.deepEqual(httpResponseFor(err, ANSWERS), [400, 'input is empty', {}]);
  });

  it('answers 500 and the fixed text for anything else, never its message', () => {
    const err = Object.assign(new Error('index out of bounds at src/lib.rs:12'), { code: 'PANIC' });
    assert.deepEqual(httpResponseFor(err, ANSWERS), [500, 'it failed', {}]);
    assert.deepEqual(httpResponseFor(new Error('x')), [500, 'internal error', {}]);
  });
});

describe('createArrivals', () => {
  it('says once that a connection arrived', () => {
    const arrivals = createArrivals();
    assert.equal(arrivals.sinceAsked(), false);
    arrivals.connected();
    arrivals.connected();
    assert.equal(arrivals.sinceAsked(), true);
    assert.equal(arrivals.sinceAsked(), false);
  });

  it('hears of every connection createHttpServer accepts, and the app sees which requests pipeline', async (t) => {
    const arrivals = createArrivals();
    const seen = [];
    const { server, shutdown } = createHttpServer(
      (req, res) => {
        seen.push(isPipelined(req));
        res.end('ok');
      },
      { arrivals },
    );
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    assert.equal(arrivals.sinceAsked(), false);
    const socket = net.connect(server.address().port, '127.0.0.1');
    t.after(() => {
      socket.destroy();
      return shutdown();
    });
    await new Promise((resolve) => socket.once('connect', resolve));
    // Two requests in one write: the second came before the first was answered.
    socket.write('GET / HTTP/1.1\r\nHost: a\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n');
    let text = '';
    for await (const chunk of socket) {
      text += chunk;
      if (text.split('\r\n\r\nok').length === 3) break;
    }
    assert.equal(arrivals.sinceAsked(), true);
    assert.deepEqual(seen, [false, true]);
  });
});

/** A server of createHttpServer on a free port; `closed()` resolves when its side of the first connection closes. */
async function listening(t, handler, options) {
  const { server, shutdown } = createHttpServer(handler, options);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const firstClosed = new Promise((resolve) => server.once('connection', (socket) => socket.once('close', resolve)));
  const sockets = [];
  server.on('connection', (socket) => sockets.push(socket));
  // A failed test leaves no connection for the drain to wait on.
  t.after(() => {
    for (const socket of sockets) socket.destroy();
    return shutdown();
  });
  return { port: server.address().port, closed: () => firstClosed };
}

/** Writes `bytes` on a new connection; the statuses of what comes back once the server ends it. */
async function statusesFor(port, bytes) {
  const socket = net.connect(port, '127.0.0.1');
  socket.write(bytes);
  let text = '';
  for await (const chunk of socket) text += chunk;
  return [...text.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
}

const request = (path) => `GET ${path} HTTP/1.1\r\nHost: a\r\n\r\n`;
const BAD_HEAD = 'GET /x HTTP/1.1\r\nHost: a\r\nBad Header\r\n\r\n';
const slowly = (ms) => (req, res) => setTimeout(() => res.end(req.url), ms);

describe('a head Node cannot parse, after requests on the same connection', () => {
  it('answers the requests first, in order, then refuses it and reads on to the close', async (t) => {
    const server = await listening(t, slowly(20));
    const started = performance.now();
    assert.deepEqual(await statusesFor(server.port, request('/a') + request('/b') + BAD_HEAD), [200, 200, 400]);
    await server.closed();
    // Read on after the refusal: the client's close is seen, not waited out (LINGER_MS, 2 s).
    assert.ok(performance.now() - started < 1500, `closed after ${performance.now() - started} ms`);
  });

  it('waits for every answer in progress, not only the queue (pipelineDepth 2)', async (t) => {
    const server = await listening(t, slowly(50), { pipelineDepth: 2 });
    assert.deepEqual(await statusesFor(server.port, request('/a') + request('/b') + BAD_HEAD), [200, 200, 400]);
  });

  it('holds the connection no longer than a request may take when an answer never comes', async (t) => {
    const server = await listening(t, () => {}, {
      headersTimeoutMs: 300,
      requestTimeoutMs: 300,
      idleTimeoutMs: 60_000,
    });
    const socket = net.connect(server.port, '127.0.0.1');
    t.after(() => socket.destroy());
    socket.on('error', () => {});
    socket.write(request('/never') + BAD_HEAD);
    const started = performance.now();
    const closed = await Promise.race([server.closed().then(() => true), sleep(5000).then(() => false)]);
    assert.ok(closed, `still open after ${performance.now() - started} ms`);
  });
});
