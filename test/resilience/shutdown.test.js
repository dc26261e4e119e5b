'use strict';

// SIGTERM with requests in flight: they are answered, nothing new is
// accepted, every child stops, and the server exits 0 within 10 s.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const net = require('node:net');
const { startTier, startServer, tierCommand } = require('../helpers/servers');
const { decodeQrPng } = require('../helpers/decode');
const { qrcodePath, parseResponses } = require('../helpers/http');
const { commName, isAlive, waitFor, within } = require('../helpers/processes');
const { connect } = require('../helpers/sockets');
const { TIERS, BACKEND_TIERS } = require('../helpers/tiers');
const { treePids } = require('../../bench/lib/proc-tree');

const SHUTDOWN_LIMIT_MS = 10_000;
// `make test-node-lines` runs the drain on the oldest supported Node line
// (ADVERSARIAL_QUICK, one tier per backend, single-process); the rest is the
// pinned line's.
const QUICK = Boolean(process.env.ADVERSARIAL_QUICK);
const PINNED_LINE_ONLY = QUICK && 'ADVERSARIAL_QUICK: the pinned Node line runs this';
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

describe('SIGTERM with requests in flight', { skip: PINNED_LINE_ONLY }, () => {
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

describe('SIGTERM the moment the ready line is read', { skip: PINNED_LINE_ONLY }, () => {
  // A supervisor (or these tests) may stop a server as soon as it says it
  // listens: the signal handlers must already be in place.
  for (const tier of ['js', 'axum']) {
    it(`${tier === 'axum' ? 'qr_server' : 'node-server'}: exits 0 every time`, async () => {
      const exits = [];
      for (let i = 0; i < 30; i++) {
        const server = await startTier(tier);
        exits.push(await server.stop());
      }
      assert.deepEqual(
        exits.filter((code) => code !== 0),
        [],
      );
    });
  }
});

/** Gone, or a zombie nobody has reaped yet: either way it runs no more. */
function stopped(pid) {
  try {
    return /^\d+ \(.*\) [ZX]/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

/** Starts a tier as a process-group leader, as a terminal or a service manager starts a service. */
function startGroupLeader(tier, options) {
  const [command, args] = tierCommand(tier, options);
  return startServer('setsid', [command, ...args]);
}

/** `count` connections, each pipelining `perConnection` requests in one write once connected. */
function pipelined(url, count, perConnection, label) {
  const { hostname, port } = new URL(url);
  return Array.from({ length: count }, (_, c) => {
    const texts = Array.from({ length: perConnection }, (_, i) => `${label} ${c}.${i}`);
    const socket = net.connect(Number(port), hostname);
    const chunks = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => {});
    const closed = new Promise((resolve) => socket.on('close', () => resolve(Buffer.concat(chunks))));
    socket.once('connect', () =>
      socket.write(texts.map((t) => `GET ${qrcodePath(t)} HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`).join('')),
    );
    return { texts, chunks, closed };
  });
}

// systemd's default stop (KillMode=control-group), Ctrl-C in a terminal and
// process managers signal every process of the group, not only node-server:
// its children must still be there until node-server has finished with them.
describe('a stop signal to the pid or to the whole process group', { skip: PINNED_LINE_ONLY }, () => {
  const CASES = TIERS.flatMap((tier) => [[tier, {}], ...(tier === 'axum' ? [] : [[tier, { workers: 2 }]])]);
  for (const [tier, options] of CASES) {
    for (const target of ['pid', 'group']) {
      const name = `${tier}${options.workers ? `, ${options.workers} cluster workers` : ''}`;
      it(
        `${name}, ` +
          `SIGTERM to the ${target}: ` +
          `200 requests in flight on 50 connections, ` +
          `every one answered`,
        async () => {
          const server = await startGroupLeader(tier, options);
          const pids = treePids(server.child.pid);
          const connections = pipelined(server.url, 50, 4, target);
          // Every connection accepted and being answered: the 200 requests are
          // the server's. (On the fast tiers most are answered by the time the
          // signal lands; a signal while pipelined requests still sit unread is
          // the case of 'SIGTERM with pipelined requests still unread' below.)
          await waitFor(() => connections.every((c) => c.chunks.length > 0), 10_000, 'an answer on every connection');
          process.kill(target === 'group' ? -server.child.pid : server.child.pid, 'SIGTERM');
          const answers = await Promise.all(connections.map(async (c) => parseResponses(await c.closed)));
          const statuses = answers.flat().map((a) => a.status);
          assert.deepEqual(
            statuses.filter((status) => status !== 200),
            [],
            server.output(),
          );
          assert.equal(statuses.length, 200, `${statuses.length} answers`);
          assert.equal((await decodeQrPng(answers.at(-1).at(-1).body)).text, connections.at(-1).texts.at(-1));
          assert.equal(await server.stop(), 0, server.output());
          await waitFor(() => pids.every(stopped), 5000, 'every process of the tree stopped');
        },
      );
    }
  }

  for (const tier of ['cli-pool', 'axum-proxy']) {
    it(`${tier}: node-server killed by SIGKILL leaves no child behind`, async () => {
      const server = await startGroupLeader(tier, {});
      const children = await waitFor(
        () => {
          const pids = treePids(server.child.pid).filter((pid) => pid !== server.child.pid && !stopped(pid));
          return pids.length > 0 && pids;
        },
        5000,
        'its children',
      );
      process.kill(server.child.pid, 'SIGKILL');
      await waitFor(
        () => children.every(stopped),
        15_000,
        `${children.map((pid) => `${commName(pid)} ${pid}`)} stopped`,
      );
    });
  }
});

// A pipelining client's requests that sit unread in the kernel when the
// signal lands: the server pauses a connection while an earlier request of
// it is being answered, so the second half of each burst arrives unread.
// The signal goes to the whole group (the children must not go first), single
// process and clustered. 400 requests: js answers them well within the
// server's 10 s drain on a slow 2-core VM (1,600 did not, at 120 req/s).
describe('SIGTERM with pipelined requests still unread', { skip: PINNED_LINE_ONLY }, () => {
  const CONNECTIONS = 25;
  const HALF = 8;
  const CASES = TIERS.flatMap((tier) => [[tier, {}], ...(tier === 'axum' ? [] : [[tier, { workers: 2 }]])]);
  for (const [tier, options] of CASES) {
    const name = `${tier}${options.workers ? `, ${options.workers} cluster workers` : ''}`;
    it(
      `${name}: ` +
        `${CONNECTIONS} connections, ` +
        `${HALF} requests read and ${HALF} more waiting in the kernel each: ` +
        `every one answered`,
      async () => {
        const server = await startGroupLeader(tier, options);
        const { hostname } = new URL(server.url);
        const connections = Array.from({ length: CONNECTIONS }, (_, c) => {
          const texts = Array.from({ length: 2 * HALF }, (_, i) => `unread at the signal ${c}.${i}`);
          const heads = texts.map((t) => `GET ${qrcodePath(t)} HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
          const conn = connect(server.url);
          conn.texts = texts;
          conn.connected.then(() => conn.socket.write(heads.slice(0, HALF).join('')));
          conn.second = () => conn.socket.write(heads.slice(HALF).join(''));
          return conn;
        });
        await Promise.all(connections.map((c) => c.connected));
        await waitFor(() => connections.every((c) => c.chunks.length > 0), 10_000, 'an answer on every connection');
        for (const c of connections) c.second();
        process.kill(-server.child.pid, 'SIGTERM');
        const answers = await within(
          Promise.all(connections.map(async (c) => parseResponses(await c.closed))),
          SHUTDOWN_LIMIT_MS,
          'the closes',
        );
        const counts = answers.map((a) => a.length);
        assert.deepEqual(
          counts.filter((n) => n !== 2 * HALF),
          [],
          `answers per connection ${counts}`,
        );
        assert.ok(answers.flat().every((a) => a.status === 200));
        assert.equal((await decodeQrPng(answers.at(-1).at(-1).body)).text, connections.at(-1).texts.at(-1));
        assert.equal(await server.stop(), 0, server.output());
      },
    );
  }
});

describe('drain: SIGTERM while requests complete their heads', () => {
  const CASES = [
    ...(QUICK ? BACKEND_TIERS : TIERS).map((tier) => [tier, {}]),
    ...(QUICK
      ? []
      : [
          ['js', { workers: 2 }],
          ['axum-proxy', { workers: 2 }],
        ]),
  ];
  for (const [tier, options] of CASES) {
    const name = options.workers ? `${tier}, ${options.workers} cluster workers` : tier;
    it(`${name}: answers sync and async routes on kept-alive connections, exits 0`, async () => {
      const server = await startTier(tier, options);
      const { hostname } = new URL(server.url);
      // Kept-alive connections (one request answered on each already), then
      // the first half of a second head: a load balancer's probe, a bad
      // request, a generation.
      const requests = [
        ['/healthz', 200],
        ['/qrcode?text=%FF', 400],
        [qrcodePath('drained'), 200],
        ['/qrcode', 400],
      ].map(([path, status]) => ({ path, status, conn: connect(server.url) }));
      for (const r of requests) {
        r.conn.socket.write(`GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
        await waitFor(() => r.conn.chunks.length > 0, 5000, 'the first answer');
        r.conn.socket.write(`GET ${r.path} HTTP/1.1\r\nHost: ${hostname}\r\n`);
      }
      await sleep(200);
      const exit = server.stop();
      await sleep(300);
      for (const r of requests) r.conn.socket.write('\r\n');
      for (const r of requests) {
        const [first, second] = parseResponses(await within(r.conn.closed, 15_000, `${r.path} closing`));
        assert.equal(first?.status, 200, `${r.path}: first answer`);
        assert.equal(second?.status, r.status, `${r.path} after SIGTERM: ${second?.head}`);
        if (r.path.startsWith('/qrcode?text=drained')) assert.equal((await decodeQrPng(second.body)).text, 'drained');
      }
      assert.equal(await exit, 0, server.output());
    });
  }
});
