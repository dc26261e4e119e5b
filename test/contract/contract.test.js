'use strict';

// One suite, every tier: the same requests must get the same answers.
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { startTier } = require('../helpers/servers');
const { get, getFresh, rawRequest, qrcodePath, parseResponses } = require('../helpers/http');
const { connect } = require('../helpers/sockets');
const { childPids, commName } = require('../helpers/processes');
const { decodeQrPng } = require('../helpers/decode');
const { TIERS, RUST_TIERS, SKIPPED } = require('../helpers/tiers');
const { VALID_TEXTS } = require('../helpers/fixtures');

const MISSING = 'missing "text" query param';
const NOT_SINGLE = '"text" must be a single string';
const TOO_LONG = 'text must be <= 512 bytes';
const INVALID_UTF8 = 'text must be valid UTF-8';
const URI_TOO_LONG = 'uri too long (limit 8192 bytes)';
const TARGET_PREFIX = '/qrcode?text=';

/** [name, request path, status, body] */
const BAD_REQUESTS = [
  ['no query', '/qrcode', 400, MISSING],
  ['empty text', '/qrcode?text=', 400, MISSING],
  ['bare key', '/qrcode?text', 400, MISSING],
  ['other params only', '/qrcode?txt=a&texts=b', 400, MISSING],
  ['repeated', '/qrcode?text=a&text=b', 400, NOT_SINGLE],
  ['repeated, one empty', '/qrcode?text=&text=b', 400, NOT_SINGLE],
  ['structured', '/qrcode?text[a]=b', 400, NOT_SINGLE],
  ['structured, encoded brackets', '/qrcode?text%5B%5D=b', 400, NOT_SINGLE],
  ['513 ASCII bytes', qrcodePath('a'.repeat(513)), 400, TOO_LONG],
  // 171 UTF-16 units, 513 UTF-8 bytes: the limit counts bytes.
  ['513 bytes of euro signs', qrcodePath('€'.repeat(171)), 400, TOO_LONG],
  ['4 KiB', qrcodePath('x'.repeat(4096)), 400, TOO_LONG],
  ['lone 0xFF', '/qrcode?text=%FF', 400, INVALID_UTF8],
  ['truncated sequence', '/qrcode?text=ab%C3', 400, INVALID_UTF8],
  ['UTF-16 surrogate as UTF-8', '/qrcode?text=%ED%A0%80', 400, INVALID_UTF8],
  ['overlong slash', '/qrcode?text=%C0%AF', 400, INVALID_UTF8],
  // The request target's limit is 8 KiB: at it the text rule answers, past it 414.
  ['8192-byte target', TARGET_PREFIX + 'x'.repeat(8192 - TARGET_PREFIX.length), 400, TOO_LONG],
  ['8193-byte target', TARGET_PREFIX + 'x'.repeat(8193 - TARGET_PREFIX.length), 414, URI_TOO_LONG],
  ['8193-byte target elsewhere', `/healthz?${'x'.repeat(8193 - 9)}`, 414, URI_TOO_LONG],
  ['60 KiB target', qrcodePath('x'.repeat(60 * 1024)), 414, URI_TOO_LONG],
];

// text -> tier -> PNG, for the byte-identity check at the end.
const pngs = new Map();

for (const tier of TIERS) {
  describe(`tier ${tier}`, () => {
    let server;
    before(async () => {
      server = await startTier(tier);
    });
    after(async () => {
      assert.equal(await server.stop(), 0, 'exits 0 on SIGTERM');
    });

    for (const [name, text] of VALID_TEXTS) {
      it(`encodes ${JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}...` : name)}`, async () => {
        const res = await get(server.url, qrcodePath(text));
        assert.equal(res.status, 200, res.body.toString());
        assert.equal(res.headers['content-type'], 'image/png');
        assert.equal(Number(res.headers['content-length']), res.body.length);
        const decoded = await decodeQrPng(res.body);
        assert.equal(decoded.text, text);
        assert.ok(decoded.width >= 200 && decoded.height >= 200, `${decoded.width}x${decoded.height}`);
        if (!pngs.has(text)) pngs.set(text, new Map());
        pngs.get(text).set(tier, res.body);
      });
    }

    it('keeps form encoding: + is a space, %2B a plus', async () => {
      const res = await get(server.url, '/qrcode?text=a+b%2Bc');
      assert.equal((await decodeQrPng(res.body)).text, 'a b+c');
    });

    for (const [name, path, status, body] of BAD_REQUESTS) {
      it(`answers ${name} with ${status}`, async () => {
        const res = await get(server.url, path);
        assert.equal(res.status, status);
        assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
        assert.equal(res.body.toString('utf8'), body);
      });
    }

    it('refuses a 1 MiB request line fast', async () => {
      const started = Date.now();
      const res = await rawRequest(server.url, `GET ${qrcodePath('x'.repeat(1 << 20))} HTTP/1.1\r\nHost: x\r\n\r\n`);
      // hyper stops reading at its ~400 KiB buffer and answers 431 itself,
      // before qr_server's own 414 can run.
      if (tier === 'axum') assert.equal(res.status, 431);
      else assert.deepEqual(res, { status: 414, body: URI_TOO_LONG });
      assert.ok(Date.now() - started < 2000, `${Date.now() - started} ms`);
    });

    it('still serves after every bad request', async () => {
      const res = await get(server.url, qrcodePath('still here'));
      assert.equal((await decodeQrPng(res.body)).text, 'still here');
    });

    it('serves 100 concurrent requests', async () => {
      const texts = Array.from({ length: 100 }, (_, i) => `concurrent ${i}`);
      const responses = await Promise.all(texts.map((t) => get(server.url, qrcodePath(t))));
      const decoded = await Promise.all(responses.map((res) => decodeQrPng(res.body)));
      assert.deepEqual(
        decoded.map(({ text }) => text),
        texts,
      );
    });

    it('answers requests pipelined on one connection, in order', async () => {
      const texts = ['pipelined 1', 'pipelined 2', 'pipelined 3'];
      const last = texts.length - 1;
      const requests = texts.map(
        (t, i) => `GET ${qrcodePath(t)} HTTP/1.1\r\nHost: x\r\n${i === last ? 'Connection: close\r\n' : ''}\r\n`,
      );
      const client = connect(server.url);
      await client.connected;
      client.socket.write(requests.join(''));
      const answers = parseResponses(await client.closed);
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 200],
      );
      const decoded = await Promise.all(answers.map((a) => decodeQrPng(a.body)));
      assert.deepEqual(
        decoded.map(({ text }) => text),
        texts,
      );
    });

    it('answers /healthz', async () => {
      const res = await get(server.url, '/healthz');
      assert.equal(res.status, 200);
      assert.match(res.headers['content-type'], /^application\/json/);
      const health = JSON.parse(res.body);
      assert.equal(health.tier, tier);
      assert.equal(health.pid, server.child.pid);
    });
  });
}

// A tier this runtime cannot serve (ffi before Node 26) is reported, not silently left out.
for (const [tier, reason] of SKIPPED) describe(`tier ${tier}`, { skip: reason }, () => {});

describe('every Rust tier', () => {
  it('returns byte-identical PNGs for the same text', () => {
    for (const [text, byTier] of pngs) {
      const [first, ...others] = RUST_TIERS;
      for (const tier of others) {
        assert.ok(
          byTier.get(tier)?.equals(byTier.get(first)),
          `${tier} differs from ${first} for ${JSON.stringify(text.slice(0, 40))}`,
        );
      }
    }
  });
});

describe('cluster mode', () => {
  // Stopping a cluster (every worker and child gone) is shutdown.test.js's.
  it('spreads requests over --workers processes sharing one qr_server', async () => {
    const server = await startTier('axum-proxy', { workers: 2 });
    try {
      const pids = new Set();
      for (let i = 0; i < 20; i++) pids.add(JSON.parse((await getFresh(server.url, '/healthz')).body).pid);
      assert.equal(pids.size, 2);
      const res = await getFresh(server.url, qrcodePath('from a worker'));
      assert.equal((await decodeQrPng(res.body)).text, 'from a worker');
      // One shared qr_server, started by the primary.
      const upstreams = childPids(server.child.pid).filter((pid) => commName(pid) === 'qr_server');
      assert.equal(upstreams.length, 1);
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });
});
