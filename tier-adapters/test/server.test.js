'use strict';

// tier-adapters/server's answers to a tier's errors, and the arrivals a
// server reports to the event-loop tiers, on a real server and connection.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
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
