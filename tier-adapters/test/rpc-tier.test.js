'use strict';

// createRpcTier against a real socket server speaking docs/rpc-protocol.md,
// written here so that each test can make it misbehave: answers out of order,
// errors and busy answers, silence, a close mid-call, a restart.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { createRpcTier } = require('..');

const BUSY = { code: 'SERVER_BUSY', status: 503, message: 'server busy' };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * A server on a fresh Unix socket. `handler(payload, reply, socket)` answers
 * a call with `reply(status, payload)`, whenever it likes (or never).
 */
async function rpcServer(
  handler,
  socketPath = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rpc-test-')), 's.sock'),
) {
  const sockets = new Set();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 4 && buffered.length >= 4 + buffered.readUInt32BE(0)) {
        const body = buffered.subarray(4, 4 + buffered.readUInt32BE(0));
        buffered = buffered.subarray(4 + body.length);
        const id = body.readUInt32BE(0);
        handler(
          String(body.subarray(4)),
          (status, payload) => {
            const out = Buffer.from(payload);
            const head = Buffer.alloc(9);
            head.writeUInt32BE(5 + out.length, 0);
            head.writeUInt32BE(id, 4);
            head[8] = status;
            if (!socket.destroyed) socket.write(Buffer.concat([head, out]));
          },
          socket,
        );
      }
    });
    socket.on('error', () => {});
  });
  await new Promise((resolve) => server.listen(socketPath, resolve));
  return {
    path: socketPath,
    connections: () => sockets.size,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('createRpcTier', () => {
  it('carries many calls on one connection, answered by id in any order, and decodes statuses', async () => {
    const server = await rpcServer((text, reply) => {
      if (text === 'bad') return reply(7, 'bad input');
      if (text === 'busy') return reply(255, 'server busy');
      // The first call is answered last.
      setTimeout(() => reply(0, text.toUpperCase()), text === 'a' ? 50 : 5);
    });
    const tier = createRpcTier({
      path: server.path,
      connections: 1,
      decodeError: (status, payload) => Object.assign(new Error(String(payload)), { status: 400, number: status }),
    });
    try {
      const finished = [];
      const calls = ['a', 'b', 'c'].map((t) =>
        tier.run(t).then((out) => {
          finished.push(String(out));
          return String(out);
        }),
      );
      assert.deepEqual(await Promise.all(calls), ['A', 'B', 'C']);
      assert.deepEqual(finished, ['B', 'C', 'A']);
      assert.ok(Buffer.isBuffer(await tier.run('d')));
      await assert.rejects(tier.run('bad'), { status: 400, number: 7, message: 'bad input' });
      await assert.rejects(tier.run('busy'), BUSY);
      assert.equal(server.connections(), 1);
    } finally {
      await tier.close();
      await server.close();
    }
  });

  it('answers 504 past the deadline and drops the late answer; a hung-up caller leaves too', async () => {
    const server = await rpcServer((text, reply) => setTimeout(() => reply(0, text), text === 'slow' ? 300 : 1));
    const tier = createRpcTier({
      path: server.path,
      name: 'calc rpc',
      deadlineMs: 100,
      connections: 1,
      callsPerConnection: 1,
      maxQueue: 4,
    });
    try {
      await assert.rejects(tier.run('slow'), { status: 504, message: 'calc rpc timed out', expose: true });
      // Its answer arrives later, on the same connection, and is not taken for this call's.
      assert.equal(String(await tier.run('next')), 'next');
      await sleep(300);
      assert.equal(String(await tier.run('after')), 'after');

      // One call in flight; a second waits in the queue, its caller hangs up.
      const abort = new AbortController();
      const first = tier.run('slow');
      const waiting = tier.run('queued', { signal: abort.signal });
      abort.abort();
      await assert.rejects(waiting, { name: 'AbortError' });
      await assert.rejects(first, { status: 504 });
      // A sent call whose caller hangs up fails at once; its answer is dropped.
      const hangUp = new AbortController();
      const sent = tier.run('slow', { signal: hangUp.signal });
      await sleep(10);
      hangUp.abort();
      await assert.rejects(sent, { name: 'AbortError' });
      assert.equal(String(await tier.run('fine')), 'fine');
    } finally {
      await tier.close();
      await server.close();
    }
  });

  it('answers 502 for calls on a connection that dies and while nothing listens, then reconnects', async () => {
    let server = await rpcServer((text, reply, socket) => (text === 'kill' ? socket.destroy() : reply(0, text)));
    const where = server.path;
    const tier = createRpcTier({ path: where, name: 'calc rpc', connections: 1 });
    try {
      assert.equal(String(await tier.run('one')), 'one');
      await assert.rejects(tier.run('kill'), { status: 502, message: 'calc rpc unavailable', expose: true });
      await server.close();
      await assert.rejects(tier.run('two'), { status: 502 });
      // While the back-off runs, calls fail at once instead of queueing.
      const started = Date.now();
      await assert.rejects(tier.run('three'), { status: 502 });
      assert.ok(Date.now() - started < 50);
      server = await rpcServer((text, reply) => reply(0, text), where);
      let answer;
      for (let i = 0; i < 50 && !answer; i++) answer = await tier.run('back').catch(() => sleep(50));
      assert.equal(String(answer), 'back');
    } finally {
      await tier.close();
      await server.close();
    }
  });

  it('holds connections * callsPerConnection calls at the server and maxQueue more, and refuses the rest', async () => {
    let seen = 0;
    const server = await rpcServer((text, reply) => {
      seen++;
      setTimeout(() => reply(0, text), 100);
    });
    const tier = createRpcTier({ path: server.path, connections: 2, callsPerConnection: 2, maxQueue: 1 });
    try {
      const results = await Promise.allSettled([1, 2, 3, 4, 5, 6].map((n) => tier.run(String(n))));
      assert.deepEqual(
        results.map((r) => r.value?.toString() ?? r.reason.code),
        ['1', '2', '3', '4', '5', 'SERVER_BUSY'],
      );
      assert.equal(seen, 5);
      assert.equal(server.connections(), 2);
    } finally {
      await tier.close();
      await server.close();
    }
  });

  it('closes a connection idle for idleMs, and on close() finishes the calls in flight and queued first', async () => {
    const server = await rpcServer((text, reply) => setTimeout(() => reply(0, text), 100));
    const tier = createRpcTier({ path: server.path, connections: 1, callsPerConnection: 1, idleMs: 150 });
    try {
      assert.equal(String(await tier.run('x')), 'x');
      assert.equal(server.connections(), 1);
      await sleep(300);
      assert.equal(server.connections(), 0);
      const late = tier.run('in flight');
      const queued = tier.run('queued');
      await sleep(20);
      await tier.close();
      assert.equal(String(await late), 'in flight');
      assert.equal(String(await queued), 'queued');
      await assert.rejects(tier.run('after close'), { code: 'TIER_CLOSED', status: 503 });
      await sleep(50);
      assert.equal(server.connections(), 0, 'no connection left open after close()');
    } finally {
      await server.close();
    }
  });

  it('drops a connection whose answer frame is past maxAnswerBytes', async () => {
    const server = await rpcServer((text, reply) => reply(0, 'x'.repeat(Number(text))));
    const tier = createRpcTier({ path: server.path, connections: 1, maxAnswerBytes: 1000 });
    try {
      assert.equal((await tier.run('900')).length, 900);
      await assert.rejects(tier.run('5000'), { status: 502 });
    } finally {
      await tier.close();
      await server.close();
    }
  });
});
