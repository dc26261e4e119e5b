'use strict';

// SIGTERM with requests in flight: they are answered, nothing new is
// accepted, every child stops, and the server exits 0 within 10 s.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const { startTier } = require('./helpers/servers');
const { decodeQrPng } = require('./helpers/decode');
const { commName, isAlive } = require('./helpers/processes');
const { treePids } = require('../bench/lib/proc-tree');

const SHUTDOWN_LIMIT_MS = 10_000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * A request whose head is sent in two parts: the server has begun reading it
 * (it is in flight) but cannot answer until `finish()`.
 */
function halfSentRequest(baseUrl, text) {
  const { hostname, port } = new URL(baseUrl);
  const socket = net.connect(Number(port), hostname);
  socket.write(`GET /qrcode?text=${encodeURIComponent(text)} HTTP/1.1\r\nHost: ${hostname}\r\n`);
  const response = new Promise((resolve, reject) => {
    const chunks = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks)));
  });
  return { finish: () => socket.write('\r\n'), response };
}

function parseResponse(raw) {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.subarray(0, split).toString('latin1');
  return { status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]), head, body: raw.subarray(split + 4) };
}

function connects(baseUrl) {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    socket.on('connect', () => socket.destroy() && resolve(true));
    socket.on('error', () => resolve(false));
  });
}

const CASES = [
  ['node-server, cli-pool', 'cli-pool', {}],
  ['node-server, cli, 2 cluster workers', 'cli', { workers: 2 }],
  ['node-server, axum-proxy, 2 cluster workers', 'axum-proxy', { workers: 2 }],
  ['qr_server', 'axum', {}],
];

describe('SIGTERM with requests in flight', () => {
  for (const [name, tier, options] of CASES) {
    it(`${name}: answers them, stops accepting and children, exits 0`, async () => {
      const server = await startTier(tier, options);
      const texts = [0, 1, 2, 3].map((i) => `in flight ${i}`);
      const requests = texts.map((t) => halfSentRequest(server.url, t));
      await sleep(300); // the server has read the first half of each
      const pids = treePids(server.child.pid);
      const started = Date.now();
      const exit = server.stop(); // SIGTERM
      await sleep(300);
      assert.equal(await connects(server.url), false, 'still accepting after SIGTERM');

      for (const r of requests) r.finish();
      const responses = (await Promise.all(requests.map((r) => r.response))).map(parseResponse);
      for (const [i, res] of responses.entries()) {
        assert.equal(res.status, 200, res.head);
        assert.equal((await decodeQrPng(res.body)).text, texts[i]);
      }
      assert.equal(await exit, 0);
      assert.ok(Date.now() - started < SHUTDOWN_LIMIT_MS, `exited after ${Date.now() - started} ms`);
      const left = pids.filter(isAlive).map((pid) => `${commName(pid)} ${pid}`);
      assert.deepEqual(left, [], 'processes left behind');
    });
  }
});

describe('SIGTERM the moment the ready line is read', () => {
  // A supervisor (or these tests) may stop a server as soon as it says it
  // listens: the signal handlers must already be in place.
  for (const tier of ['js', 'axum']) {
    it(`${tier === 'axum' ? 'qr_server' : 'node-server'}: exits 0 every time`, async () => {
      const exits = [];
      for (let i = 0; i < 30; i++) {
        const server = await startTier(tier);
        exits.push(await server.stop());
      }
      assert.deepEqual(exits.filter((code) => code !== 0), []);
    });
  }
});
