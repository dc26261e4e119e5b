'use strict';

// Hostile peers against `qr_server --rpc` (docs/rpc-protocol.md), the real
// server on a real socket: garbage, a 4 GiB length, a flood never read, half
// a frame, a peer gone mid-answer. Each must cost bounded memory while a
// well-behaved caller (the adapters' RPC tier) keeps being answered; the
// drain answers every call read before SIGTERM and removes the socket file.
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { createRpcTier } = require('tier-adapters');
const { startServer, ROOT } = require('../helpers/servers');
const { decodeQrPng } = require('../helpers/decode');
const { waitFor, within } = require('../helpers/processes');
const { sampleTree } = require('../../bench/lib/proc-tree');

const QR_SERVER = process.env.QR_SERVER_BIN || path.join(ROOT, 'target/release/qr_server');
const MB = 1e6;
// The bounds: memory over the warmed-up server, a caller's wait.
const MAX_GROWTH_BYTES = 50 * MB;
const CALLER_P50_MS = 100;
// The machine is shared and noisy: the worst single wait gets slack.
const CALLER_MAX_MS = 1000;
// RPC_READ_TIMEOUT in qr_server/src/limits.rs.
const READ_TIMEOUT_MS = 10_000;
const WRITE_TIMEOUT_MS = 10_000;
const MAX_IN_FLIGHT_PER_CONNECTION = 64;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A request frame: u32 length, u32 id, the text. */
function frame(id, text) {
  const payload = Buffer.from(text);
  const out = Buffer.alloc(8 + payload.length);
  out.writeUInt32BE(4 + payload.length, 0);
  out.writeUInt32BE(id, 4);
  payload.copy(out, 8);
  return out;
}

/** Answers read off a raw connection: { id, status, payload }. */
function readAnswers(socket, onAnswer) {
  let buffered = Buffer.alloc(0);
  socket.on('data', (chunk) => {
    buffered = Buffer.concat([buffered, chunk]);
    while (buffered.length >= 4 && buffered.length >= 4 + buffered.readUInt32BE(0)) {
      const len = buffered.readUInt32BE(0);
      onAnswer({ id: buffered.readUInt32BE(4), status: buffered[8], payload: buffered.subarray(9, 4 + len) });
      buffered = buffered.subarray(4 + len);
    }
  });
}

const connect = (where) =>
  new Promise((resolve, reject) => {
    const socket = net.connect(where, () => resolve(socket));
    socket.on('error', reject);
  });
const closed = (socket) => new Promise((resolve) => (socket.destroyed ? resolve() : socket.once('close', resolve)));
/** The server's open descriptors: its side of a connection, whether or not a paused client notices the close. */
const openFds = (pid) => fs.readdirSync(`/proc/${pid}/fd`).length;

/** A well-behaved caller: one call every `every` ms through the adapters' RPC tier. */
function caller(where, { every = 50 } = {}) {
  const tier = createRpcTier({ path: where, connections: 1 });
  const latencies = [];
  const failures = [];
  let running = true;
  const done = (async () => {
    for (let i = 0; running; i++) {
      const started = performance.now();
      await tier.run(`caller ${i}`).catch((err) => failures.push(err.message));
      latencies.push(performance.now() - started);
      await sleep(every);
    }
    await tier.close();
  })();
  return {
    async stop() {
      running = false;
      await done;
      const sorted = [...latencies].sort((a, b) => a - b);
      return { failures, p50: sorted[sorted.length >> 1], max: sorted.at(-1), count: sorted.length };
    },
  };
}

/** The server's peak RSS while `attack` runs, and what a caller saw meanwhile. */
async function underAttack(t, server, attack) {
  const idle = sampleTree(server.child.pid).rss;
  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, sampleTree(server.child.pid).rss)), 100);
  const watcher = caller(server.socket);
  try {
    await attack();
  } finally {
    clearInterval(sampler);
  }
  const seen = await watcher.stop();
  const growth = peak - idle;
  assert.deepEqual(seen.failures, [], 'the caller was refused');
  assert.ok(seen.count > 3, `the caller made ${seen.count} calls`);
  assert.ok(seen.p50 < CALLER_P50_MS, `caller p50 ${seen.p50.toFixed(1)} ms`);
  assert.ok(seen.max < CALLER_MAX_MS, `caller max ${seen.max.toFixed(1)} ms`);
  assert.ok(growth < MAX_GROWTH_BYTES, `RSS grew ${(growth / MB).toFixed(1)} MB`);
  t.diagnostic(
    `RSS +${(growth / MB).toFixed(1)} MB; caller p50 ${seen.p50.toFixed(1)} ms, ` +
      `max ${seen.max.toFixed(1)} ms over ${seen.count} calls`,
  );
  return { growth, ...seen };
}

async function startRpcServer() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qr-rpc-test-'));
  const socket = path.join(dir, 'qr.sock');
  const server = await startServer(QR_SERVER, ['--port', '0', '--rpc', socket]);
  // Warm: the caller's connection and a burst, so "idle" RSS has served load.
  const tier = createRpcTier({ path: socket, connections: 4 });
  await Promise.all(Array.from({ length: 200 }, (_, i) => tier.run(`warm-up ${i}`)));
  await tier.close();
  return { ...server, socket, dir };
}

describe('qr_server --rpc against hostile peers', () => {
  let server;
  before(async () => (server = await startRpcServer()));
  after(async () => {
    await server?.stop();
    fs.rmSync(server.dir, { recursive: true, force: true });
  });

  it('answers a call with the PNG of its text, and errors with the core code and message', async () => {
    const socket = await connect(server.socket);
    const answers = new Map();
    readAnswers(socket, (a) => answers.set(a.id, a));
    socket.write(
      Buffer.concat([frame(1, 'héllo'), frame(2, ''), frame(3, 'x'.repeat(513)), frame(4, Buffer.from([0xff, 0xfe]))]),
    );
    await waitFor(() => answers.size === 4, 5000, 'four answers');
    assert.equal(answers.get(1).status, 0);
    assert.equal((await decodeQrPng(answers.get(1).payload)).text, 'héllo');
    assert.deepEqual(
      [2, 3, 4].map((id) => [answers.get(id).status, String(answers.get(id).payload)]),
      [
        [1, 'text must not be empty'],
        [2, 'text must be <= 512 bytes'],
        [3, 'text must be valid UTF-8'],
      ],
    );
    socket.destroy();
  });

  it(`answers every call of a pipelined burst: past ${MAX_IN_FLIGHT_PER_CONNECTION} in flight, busy`, async () => {
    const socket = await connect(server.socket);
    const answers = new Map();
    readAnswers(socket, (a) => answers.set(a.id, a));
    const CALLS = 2000;
    socket.write(Buffer.concat(Array.from({ length: CALLS }, (_, i) => frame(i, `burst ${i}`))));
    await waitFor(() => answers.size === CALLS, 10_000, `${CALLS} answers`);
    const statuses = [...answers.values()].map((a) => a.status);
    assert.ok(
      statuses.every((s) => s === 0 || s === 255),
      'PNG or busy',
    );
    assert.ok(statuses.filter((s) => s === 0).length >= MAX_IN_FLIGHT_PER_CONNECTION);
    assert.equal(String([...answers.values()].find((a) => a.status === 255)?.payload ?? 'server busy'), 'server busy');
    socket.destroy();
  });

  it('closes a connection that sends garbage or a 4 GiB length, at once and without buffering it', async (t) => {
    const seen = await underAttack(t, server, async () => {
      const started = Date.now();
      for (let round = 0; round < 50 || Date.now() - started < 2000; round++) {
        const [huge, short, noise] = await Promise.all([
          connect(server.socket),
          connect(server.socket),
          connect(server.socket),
        ]);
        huge.write(Buffer.from([0xff, 0xff, 0xff, 0xff, 1, 2, 3]));
        short.write(Buffer.from([0, 0, 0, 2, 9, 9])); // a body too short for its id
        noise.on('error', () => {});
        noise.write(Buffer.from(Array.from({ length: 4096 }, () => Math.floor(Math.random() * 256))));
        try {
          await within(
            Promise.all([closed(huge), closed(short)]),
            2000,
            'the server closing a 4 GiB length and a short body',
          );
        } finally {
          for (const socket of [huge, short, noise]) socket.destroy();
        }
      }
    });
    assert.ok(seen.growth < 10 * MB, `RSS grew ${(seen.growth / MB).toFixed(1)} MB`);
  });

  it('stops reading a peer that floods calls and never reads, and closes it after the write timeout', async (t) => {
    const flooders = [];
    const before = openFds(server.child.pid);
    await underAttack(t, server, async () => {
      for (let c = 0; c < 20; c++) {
        const socket = await connect(server.socket);
        socket.on('error', () => {});
        socket.pause(); // never reads an answer
        // 2 MB of calls each (8 MB of answers), written as fast as the server takes them.
        const flood = Buffer.concat(
          Array.from({ length: 5000 }, (_, i) => frame(i, `flood ${c} ${i} ${'x'.repeat(400)}`)),
        );
        socket.write(flood);
        flooders.push(socket);
      }
      await sleep(2000);
    });
    // The server read only what its bounds allow: most of each flood is still ours.
    assert.ok(
      flooders.every((s) => s.writableLength > 0),
      'the server stopped reading',
    );
    try {
      await waitFor(
        () => openFds(server.child.pid) <= before,
        WRITE_TIMEOUT_MS + 5000,
        'the server closing the flooders after the write timeout',
      );
    } finally {
      for (const socket of flooders) socket.destroy();
    }
  });

  it(
    'closes a peer that sends half a frame and stalls, ' + 'after the read timeout, serving others meanwhile',
    async (t) => {
      const stalled = [];
      await underAttack(t, server, async () => {
        for (let c = 0; c < 200; c++) {
          const socket = await connect(server.socket);
          socket.on('error', () => {});
          socket.write(frame(c, 'half of this frame').subarray(0, 12));
          stalled.push(socket);
        }
        await sleep(1000);
      });
      try {
        await within(
          Promise.all(stalled.map(closed)),
          READ_TIMEOUT_MS + 5000,
          'the server closing half-written frames after the read timeout',
        );
      } finally {
        for (const socket of stalled) socket.destroy();
      }
    },
  );

  it('survives peers gone mid-answer', async (t) => {
    await underAttack(t, server, async () => {
      for (let c = 0; c < 200; c++) {
        const socket = await connect(server.socket);
        socket.on('error', () => {});
        socket.write(Buffer.concat(Array.from({ length: 100 }, (_, i) => frame(i, `gone ${c} ${i}`))));
        await sleep(1);
        socket.destroy();
      }
    });
  });
});

describe('qr_server --rpc stopping and starting', () => {
  it(
    'answers every call read before SIGTERM, then removes its socket file; ' + 'a stale file is replaced at start',
    async () => {
      const first = await startRpcServer();
      const where = first.socket;
      const running = [first];
      try {
        const socket = await connect(where);
        const answers = [];
        readAnswers(socket, (a) => answers.push(a));
        const CALLS = MAX_IN_FLIGHT_PER_CONNECTION;
        socket.write(Buffer.concat(Array.from({ length: CALLS }, (_, i) => frame(i, `drain ${i} ${'y'.repeat(400)}`))));
        // Every frame read (the kernel holds none of them), then the signal.
        await sleep(100);
        const exit = first.stop();
        await closed(socket);
        assert.equal(await exit, 0);
        assert.equal(answers.length, CALLS);
        assert.ok(answers.every((a) => a.status === 0));
        assert.equal(fs.existsSync(where), false, 'the socket file is removed');

        // A server killed outright leaves its file; the next one takes the path over.
        const killed = await startServer(QR_SERVER, ['--port', '0', '--rpc', where]);
        running.push(killed);
        killed.child.kill('SIGKILL');
        await killed.stop();
        assert.ok(fs.existsSync(where), 'SIGKILL leaves the file');
        const next = await startServer(QR_SERVER, ['--port', '0', '--rpc', where]);
        running.push(next);
        const tier = createRpcTier({ path: where });
        assert.equal((await decodeQrPng(await tier.run('after a stale socket'))).text, 'after a stale socket');
        await tier.close();
        // A live server's path is refused, not taken over: its lock says so.
        await assert.rejects(
          startServer(QR_SERVER, ['--port', '0', '--rpc', where], { timeoutMs: 5000 }),
          /another server holds \S+\.lock/,
        );
      } finally {
        await Promise.all(running.map((s) => s.stop()));
        fs.rmSync(first.dir, { recursive: true, force: true });
      }
    },
  );
});

describe('qr_server --rpc socket file: mode, lock, a frozen owner', () => {
  const start = (where, args = []) =>
    startServer(QR_SERVER, ['--port', '0', '--rpc', where, ...args], { timeoutMs: 5000 });
  const modeOf = (file) => fs.statSync(file).mode & 0o777;

  it('makes the socket owner-only by default, and as wide as --rpc-mode asks', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qr-rpc-mode-'));
    const where = path.join(dir, 'qr.sock');
    try {
      // A permissive umask, inherited as from a careless service manager.
      const umask = process.umask(0o000);
      let server;
      try {
        server = await start(where);
      } finally {
        process.umask(umask);
      }
      assert.equal(modeOf(where).toString(8), '600');
      assert.equal(modeOf(`${where}.lock`).toString(8), '600');
      await server.stop();
      server = await start(where, ['--rpc-mode', '0660']);
      assert.equal(modeOf(where).toString(8), '660');
      await server.stop();
      await assert.rejects(start(where, ['--rpc-mode', '1777']), /invalid --rpc-mode/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lets one of two servers started at once on a stale socket take the path', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qr-rpc-race-'));
    const where = path.join(dir, 'qr.sock');
    // A stale file: a server SIGKILLed leaves its socket (and its lock, free).
    const killed = await start(where);
    killed.child.kill('SIGKILL');
    await killed.stop();
    assert.ok(fs.existsSync(where));
    try {
      const results = await Promise.allSettled([start(where), start(where)]);
      const ready = results.filter((r) => r.status === 'fulfilled').map((r) => r.value);
      try {
        assert.equal(ready.length, 1, results.map((r) => r.reason?.message.split('\n')[0]).join('; '));
        const refused = results.find((r) => r.status === 'rejected');
        assert.match(refused.reason.message, /another server (holds|is listening)/);
        // The path is the winner's socket, not one the loser unlinked and rebound.
        const tier = createRpcTier({ path: where });
        assert.equal((await decodeQrPng(await tier.run('one owner'))).text, 'one owner');
        await tier.close();
      } finally {
        await Promise.all(ready.map((s) => s.stop()));
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses at once a path whose server is frozen (SIGSTOP), without waiting on it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qr-rpc-frozen-'));
    const where = path.join(dir, 'qr.sock');
    const frozen = await start(where);
    try {
      process.kill(frozen.child.pid, 'SIGSTOP');
      const started = performance.now();
      await assert.rejects(start(where), /another server holds \S+\.lock/);
      const took = performance.now() - started;
      // qr_server's probe bound is 1 s (RPC_PROBE_TIMEOUT in qr_server/src/limits.rs); the lock answers before it.
      assert.ok(took < 3000, `refused after ${took.toFixed(0)} ms`);
      assert.ok(fs.existsSync(where), 'the frozen server keeps its socket');
    } finally {
      process.kill(frozen.child.pid, 'SIGCONT');
      await frozen.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
