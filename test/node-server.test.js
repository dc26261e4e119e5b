'use strict';

// node-server beyond the shared contract: cluster mode, shutdown, failures.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { startTier, ROOT } = require('./helpers/servers');
const { get, getFresh, qrcodePath } = require('./helpers/http');
const { decodeQrPng } = require('./helpers/decode');
const { childPids, commName, isAlive, waitFor } = require('./helpers/processes');

const SERVER = path.join(ROOT, 'node-server/server.js');

// A free loopback port is one with nothing listening on it.
const { freePort: closedPort } = require('../deploy/start');
const { LINGER_MS } = require('../node-server/lib/http-limits');

describe('cluster mode', () => {
  it('spreads requests over --workers processes and stops them all on SIGTERM', async () => {
    const server = await startTier('axum-proxy', { workers: 2 });
    const pids = new Set();
    for (let i = 0; i < 20; i++) pids.add(JSON.parse((await getFresh(server.url, '/healthz')).body).pid);
    assert.equal(pids.size, 2);
    const res = await getFresh(server.url, qrcodePath('from a worker'));
    assert.equal((await decodeQrPng(res.body)).text, 'from a worker');

    // One shared qr_server, started by the primary.
    const children = childPids(server.child.pid);
    const upstreams = children.filter((pid) => commName(pid) === 'qr_server');
    assert.equal(upstreams.length, 1);
    assert.equal(await server.stop(), 0);
    for (const pid of [...children, ...pids]) assert.ok(!isAlive(pid), `${commName(pid)} ${pid} left behind`);
  });
});

describe('failures', () => {
  it('answers 502 when the axum-proxy upstream is unreachable, and keeps serving', async () => {
    const server = await startTier('axum-proxy', { args: ['--upstream', `http://127.0.0.1:${await closedPort()}`] });
    try {
      const started = Date.now();
      const res = await get(server.url, qrcodePath('anyone there?'));
      assert.ok(Date.now() - started < 2000, `${Date.now() - started} ms`);
      assert.equal(res.status, 502);
      assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
      assert.equal(res.body.toString(), 'qr upstream unavailable');
      assert.equal((await get(server.url, '/healthz')).status, 200);
      // Bad input is still answered by node-server's own checks.
      assert.equal((await get(server.url, '/qrcode?text=%FF')).status, 400);
    } finally {
      await server.stop();
    }
  });

  it('answers 504 when the axum-proxy upstream accepts but never answers', async () => {
    const silent = net.createServer((socket) => socket.on('error', () => {})).listen(0, '127.0.0.1');
    await new Promise((r) => silent.once('listening', r));
    const server = await startTier('axum-proxy', { args: ['--upstream', `http://127.0.0.1:${silent.address().port}`] });
    try {
      const started = Date.now();
      const res = await get(server.url, qrcodePath('anyone home?'));
      assert.equal(res.status, 504);
      assert.equal(res.body.toString(), 'qr upstream timed out');
      // undici's headersTimeout, 5 s: a stuck upstream, not a slow one.
      assert.ok(Date.now() - started >= 4500, `${Date.now() - started} ms`);
      assert.equal((await get(server.url, '/healthz')).status, 200);
    } finally {
      await server.stop();
      silent.close();
    }
  });

  it('sends a request again when the upstream closes the connection it was sent on', async () => {
    // The first connection is closed on receipt, as a restarting upstream or
    // one closing an idle keep-alive connection would; the second answers.
    let connections = 0;
    const flaky = net.createServer((socket) => {
      const n = ++connections;
      socket.on('error', () => {});
      socket.once('data', () => {
        if (n === 1) return socket.destroy();
        socket.end('HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 3\r\nConnection: close\r\n\r\nPNG');
      });
    }).listen(0, '127.0.0.1');
    await new Promise((r) => flaky.once('listening', r));
    const server = await startTier('axum-proxy', { args: ['--upstream', `http://127.0.0.1:${flaky.address().port}`] });
    try {
      const res = await get(server.url, qrcodePath('second time lucky'));
      assert.equal(res.status, 200);
      assert.equal(res.body.toString(), 'PNG');
      assert.equal(connections, 2);
    } finally {
      await server.stop();
      flaky.close();
    }
  });

  it('restarts an owned qr_server that dies', async () => {
    const server = await startTier('axum-proxy');
    try {
      const [upstream] = childPids(server.child.pid).filter((pid) => commName(pid) === 'qr_server');
      process.kill(upstream, 'SIGKILL');
      // Right after the kill: a quick 502 (or already the new upstream), never a hang.
      const started = Date.now();
      const first = await get(server.url, qrcodePath('right after the kill'));
      assert.ok([200, 502].includes(first.status), String(first.status));
      assert.ok(Date.now() - started < 2000, `${Date.now() - started} ms`);
      const res = await waitFor(async () => {
        const r = await get(server.url, qrcodePath('back again'));
        return r.status === 200 && r;
      }, 5000, 'a restarted upstream');
      assert.equal((await decodeQrPng(res.body)).text, 'back again');
    } finally {
      await server.stop();
    }
  });

  it('answers 500 when the generator fails, and keeps serving', async () => {
    const server = await startTier('cli', { env: { QR_CLI_BIN: '/bin/false' } });
    try {
      const res = await get(server.url, qrcodePath('x'));
      assert.equal(res.status, 500);
      assert.equal(res.body.toString(), 'failed generating qr code');
      assert.equal((await get(server.url, '/healthz')).status, 200);
    } finally {
      await server.stop();
    }
  });

  it('replaces a killed cli-pool worker', async () => {
    const server = await startTier('cli-pool');
    try {
      const workers = () => childPids(server.child.pid).filter((pid) => commName(pid) === 'qr_cli');
      const before = await waitFor(() => workers().length > 0 && workers(), 5000, 'workers');
      process.kill(before[0], 'SIGKILL');
      await waitFor(() => workers().length === before.length && !workers().includes(before[0]), 5000, 'a replacement');
      const texts = Array.from({ length: 20 }, (_, i) => `after the kill ${i}`);
      const responses = await Promise.all(texts.map((t) => get(server.url, qrcodePath(t))));
      for (const [i, res] of responses.entries()) assert.equal((await decodeQrPng(res.body)).text, texts[i]);
    } finally {
      await server.stop();
    }
  });

  it('answers 500 only for the in-flight requests of a cli-pool worker killed under load', async () => {
    const server = await startTier('cli-pool');
    try {
      const workers = () => childPids(server.child.pid).filter((pid) => commName(pid) === 'qr_cli');
      const poolSize = os.availableParallelism(); // cli-pool's default
      const [victim] = await waitFor(() => workers().length === poolSize && workers(), 5000, 'workers');
      const results = [];
      let running = true;
      const client = async (c) => {
        for (let i = 0; running; i++) {
          const text = `client ${c} request ${i}`;
          const res = await get(server.url, qrcodePath(text));
          results.push({ text, ...res, at: Date.now() });
        }
      };
      const clients = Array.from({ length: 16 }, (_, c) => client(c));
      await new Promise((r) => setTimeout(r, 500));
      process.kill(victim, 'SIGKILL');
      const killedAt = Date.now();
      await waitFor(() => workers().length === poolSize && !workers().includes(victim), 5000, 'a replacement');
      await new Promise((r) => setTimeout(r, 500));
      running = false;
      await Promise.all(clients);

      const failed = results.filter((r) => r.status !== 200);
      // The pool hands each worker at most 4 frames ahead (PIPELINE_DEPTH).
      assert.ok(failed.length <= 4, `${failed.length} failed`);
      for (const r of failed) {
        assert.equal(r.status, 500);
        assert.equal(r.body.toString(), 'failed generating qr code');
        assert.ok(r.at >= killedAt);
      }
      const late = results.filter((r) => r.at > killedAt + 200);
      assert.ok(late.length > 50, `${late.length} requests after the kill`);
      assert.ok(late.every((r) => r.status === 200));
      for (const r of late.slice(-3)) assert.equal((await decodeQrPng(r.body)).text, r.text);
    } finally {
      await server.stop();
    }
  });

  const refusesToStart = (args, env, message) => {
    const { status, stderr } = spawnSync(process.execPath, [SERVER, '--port', '0', ...args], {
      env: { ...process.env, ...env },
      timeout: 10_000,
    });
    assert.notEqual(status, 0);
    assert.match(stderr.toString(), message);
  };

  it('refuses to start without its binary, .node or .wasm file, naming it', () => {
    const oneLine = (pattern) => new RegExp(`^node-server: ${pattern}[^\n]*\n$`);
    for (const tier of ['cli', 'cli-pool']) {
      refusesToStart(['--tier', tier], { QR_CLI_BIN: '/nonexistent/qr_cli' }, oneLine('qr_cli not found at /nonexistent/qr_cli'));
    }
    refusesToStart(['--tier', 'axum-proxy'], { QR_SERVER_BIN: '/nonexistent/qr_server' }, oneLine('qr_server not found'));
    for (const tier of ['napi', 'napi-async']) {
      const env = { NAPI_RS_NATIVE_LIBRARY_PATH: '/nonexistent/qr-napi.node' };
      refusesToStart(['--tier', tier], env, oneLine('qr_napi addon /nonexistent/qr-napi.node .* cannot be loaded'));
    }
    refusesToStart(['--tier', 'wasm'], { QR_WASM_DIR: '/nonexistent' }, oneLine('/nonexistent/pkg/qr_wasm.js not found'));
    refusesToStart(['--tier', 'wasm-raw'], { QR_WASM_DIR: '/nonexistent' }, oneLine('/nonexistent/pkg-raw/qr_wasm_raw.wasm not found'));
  });

  it('refuses an unknown tier and a port in use', async () => {
    refusesToStart(['--tier', 'cobol'], {}, /^node-server: unknown tier "cobol"/);
    const busy = net.createServer().listen(0, '127.0.0.1');
    await new Promise((r) => busy.once('listening', r));
    try {
      const { status, stderr } = spawnSync(process.execPath, [SERVER, '--tier', 'js', '--port', String(busy.address().port)], { timeout: 10_000 });
      assert.equal(status, 1);
      assert.match(stderr.toString(), /^node-server: listen EADDRINUSE/);
    } finally {
      busy.close();
    }
  });
});

describe('an over-long request line', () => {
  const HEAD = `GET /qrcode?text=${'x'.repeat(64 << 10)}`;
  const MORE = Buffer.alloc(256 << 10, 'x');

  /** Connects, sends HEAD and resolves with the socket once the answer has arrived. */
  function answered(url) {
    const { hostname, port } = new URL(url);
    const socket = net.connect({ host: hostname, port: Number(port), allowHalfOpen: true });
    const chunks = [];
    socket.on('data', (c) => chunks.push(c));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.on('error', (err) => (socket.failure = err));
    socket.write(HEAD);
    return new Promise((resolve) => socket.once('data', () => resolve({ socket, chunks, closed })));
  }

  const write = (socket, data) => new Promise((resolve, reject) => socket.write(data, (err) => (err ? reject(err) : resolve())));

  it('keeps reading after its 414, so the client is not reset before it reads the answer', async () => {
    const server = await startTier('js');
    try {
      const { socket, chunks, closed } = await answered(server.url);
      // Closing with this unread would make the kernel answer with a RST.
      for (let i = 0; i < 3; i++) {
        await write(socket, MORE);
        await new Promise((r) => setTimeout(r, 100));
      }
      socket.end();
      await closed;
      assert.equal(socket.failure, undefined);
      assert.match(Buffer.concat(chunks).toString('latin1'), /^HTTP\/1\.1 414 URI Too Long\r\n[^]*\r\n\r\nuri too long/);
    } finally {
      await server.stop();
    }
  });

  it('cuts off a client that keeps sending after its 414', async () => {
    const server = await startTier('js');
    try {
      const { socket, closed } = await answered(server.url);
      const sending = setInterval(() => socket.writable && socket.write(MORE.subarray(0, 16 << 10)), 50);
      const deadline = LINGER_MS + 8000;
      await Promise.race([closed, new Promise((_, reject) => setTimeout(() => reject(new Error(`still open after ${deadline} ms`)), deadline))]).finally(
        () => clearInterval(sending),
      );
      assert.ok(socket.destroyed);
    } finally {
      await server.stop();
    }
  });
});
