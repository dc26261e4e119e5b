'use strict';

// Faults inside the service, not a client's doing: an upstream down or
// silent, a child or worker killed or stopped, a panic in Rust, a missing
// binary; each costs only the requests it touches.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { startTier, ROOT } = require('../helpers/servers');
const { get, getFresh, qrcodePath } = require('../helpers/http');
const { decodeQrPng } = require('../helpers/decode');
const { childPids, commName, waitFor, within } = require('../helpers/processes');
const { RUST_TIERS } = require('../helpers/tiers');
const { PANIC_TEXT, TESTING_ENV } = require('../helpers/testing-build');

const SERVER = path.join(ROOT, 'node-server/server.js');

// `make test-node-lines` runs the panics on the oldest supported Node line
// (ADVERSARIAL_QUICK); the rest is the pinned line's.
const QUICK = Boolean(process.env.ADVERSARIAL_QUICK);
const PINNED_LINE_ONLY = QUICK && 'ADVERSARIAL_QUICK: the pinned Node line runs this';

// A free loopback port is one with nothing listening on it.
const { freePort: closedPort } = require('../../deploy/start');

describe('failures', { skip: PINNED_LINE_ONLY }, () => {
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
    const flaky = net
      .createServer((socket) => {
        const n = ++connections;
        socket.on('error', () => {});
        socket.once('data', () => {
          if (n === 1) return socket.destroy();
          socket.end('HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: 3\r\nConnection: close\r\n\r\nPNG');
        });
      })
      .listen(0, '127.0.0.1');
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

  for (const tier of ['axum-proxy', 'axum-rpc']) {
    it(`restarts an owned qr_server that dies (${tier})`, async () => {
      const server = await startTier(tier);
      try {
        const [upstream] = childPids(server.child.pid).filter((pid) => commName(pid) === 'qr_server');
        process.kill(upstream, 'SIGKILL');
        // Right after the kill: a quick 502 (or already the new upstream), never a hang.
        const started = Date.now();
        const first = await get(server.url, qrcodePath('right after the kill'));
        assert.ok([200, 502].includes(first.status), String(first.status));
        assert.ok(Date.now() - started < 2000, `${Date.now() - started} ms`);
        const res = await waitFor(
          async () => {
            const r = await get(server.url, qrcodePath('back again'));
            return r.status === 200 && r;
          },
          5000,
          'a restarted upstream',
        );
        assert.equal((await decodeQrPng(res.body)).text, 'back again');
      } finally {
        await server.stop();
      }
    });
  }

  it('answers 502 when the axum-rpc socket has no server, and keeps serving', async () => {
    const server = await startTier('axum-rpc', { args: ['--upstream', 'unix:/nonexistent/qr.sock'] });
    try {
      for (let i = 0; i < 3; i++) {
        const res = await get(server.url, qrcodePath(`x${i}`));
        assert.equal(res.status, 502);
        assert.equal(res.body.toString(), 'qr rpc unavailable');
      }
      assert.equal((await get(server.url, '/healthz')).status, 200);
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

  it('refuses to start without its binary, .node, .wasm or .so file, or node:ffi, naming it', () => {
    const oneLine = (pattern) => new RegExp(`^node-server: ${pattern}[^\n]*\n$`);
    for (const tier of ['cli', 'cli-pool']) {
      refusesToStart(
        ['--tier', tier],
        { QR_CLI_BIN: '/nonexistent/qr_cli' },
        oneLine('qr_cli not found at /nonexistent/qr_cli'),
      );
    }
    refusesToStart(
      ['--tier', 'axum-proxy'],
      { QR_SERVER_BIN: '/nonexistent/qr_server' },
      oneLine('qr_server not found'),
    );
    for (const tier of ['napi', 'napi-async']) {
      const env = { NAPI_RS_NATIVE_LIBRARY_PATH: '/nonexistent/qr-napi.node' };
      refusesToStart(['--tier', tier], env, oneLine('qr_napi addon /nonexistent/qr-napi.node .* cannot be loaded'));
    }
    refusesToStart(
      ['--tier', 'wasm'],
      { QR_WASM_DIR: '/nonexistent' },
      oneLine('/nonexistent/pkg/qr_wasm.js not found'),
    );
    refusesToStart(
      ['--tier', 'wasm-raw'],
      { QR_WASM_DIR: '/nonexistent' },
      oneLine('/nonexistent/pkg-raw/qr_wasm_raw.wasm not found'),
    );
    refusesToStart(
      ['--tier', 'ffi'],
      { QR_FFI_LIB: '/nonexistent/libqr_ffi.so' },
      oneLine('qr_ffi library /nonexistent/libqr_ffi.so not found'),
    );
    // A Node without node:ffi (before 26, or with it switched off) names the module and what to run.
    const noFfi = { NODE_OPTIONS: '--no-experimental-ffi' };
    refusesToStart(
      ['--tier', 'ffi'],
      noFfi,
      oneLine(`tier ffi needs node:ffi, which Node ${process.version} does not have`),
    );
  });

  it('refuses an unknown tier and a port in use', async () => {
    refusesToStart(['--tier', 'cobol'], {}, /^node-server: unknown tier "cobol"/);
    const busy = net.createServer().listen(0, '127.0.0.1');
    await new Promise((r) => busy.once('listening', r));
    try {
      const { status, stderr } = spawnSync(
        process.execPath,
        [SERVER, '--tier', 'js', '--port', String(busy.address().port)],
        { timeout: 10_000 },
      );
      assert.equal(status, 1);
      assert.match(stderr.toString(), /^node-server: listen EADDRINUSE/);
    } finally {
      busy.close();
    }
  });
});

describe('supervision', { skip: PINNED_LINE_ONLY }, () => {
  for (const tier of ['axum-proxy', 'axum-rpc']) {
    it(`the cluster primary restarts the shared qr_server on its port (${tier})`, async () => {
      const server = await startTier(tier, { workers: 2 });
      try {
        const upstream = () => childPids(server.child.pid).filter((pid) => commName(pid) === 'qr_server');
        const [first] = await waitFor(() => upstream().length === 1 && upstream(), 5000, 'the shared qr_server');
        for (let kill = 0; kill < 2; kill++) {
          const [pid] = upstream();
          process.kill(pid, 'SIGKILL');
          // Every worker finds it again (axum-rpc's back-off: at most 0.5 s).
          const res = await waitFor(
            async () => {
              const rs = await Promise.all(
                Array.from({ length: 10 }, () => getFresh(server.url, qrcodePath(`back ${kill}`))),
              );
              return rs.every((r) => r.status === 200) && rs[0];
            },
            5000,
            'the restarted upstream serving every worker',
          );
          assert.equal((await decodeQrPng(res.body)).text, `back ${kill}`);
        }
        // Both workers reach it: 20 requests spread over them all succeed.
        const responses = await Promise.all(
          Array.from({ length: 20 }, (_, i) => getFresh(server.url, qrcodePath(`spread ${i}`))),
        );
        assert.deepEqual(
          responses.map((r) => r.status),
          responses.map(() => 200),
        );
        assert.equal(upstream().length, 1);
        assert.notEqual(upstream()[0], first);
      } finally {
        assert.equal(await server.stop(), 0);
      }
    });
  }

  it(
    'a stopped cli-pool worker misses its deadline: ' + 'its requests get 500, it is replaced, others are served',
    async () => {
      const server = await startTier('cli-pool');
      try {
        const workers = () => childPids(server.child.pid).filter((pid) => commName(pid) === 'qr_cli');
        const before = await waitFor(() => workers().length >= 2 && workers(), 5000, 'workers');
        const [stopped] = before;
        process.kill(stopped, 'SIGSTOP');
        const started = Date.now();
        const texts = Array.from({ length: 40 }, (_, i) => `during the stop ${i}`);
        const responses = await within(
          Promise.all(texts.map((t) => getFresh(server.url, qrcodePath(t)))),
          10_000,
          'answers',
        );
        const failed = responses.filter((r) => r.status !== 200);
        // The pool hands each worker at most 4 frames ahead (PIPELINE_DEPTH).
        assert.ok(failed.length >= 1 && failed.length <= 4, `${failed.length} failed`);
        for (const r of failed) {
          assert.equal(r.status, 500);
          assert.equal(r.body.toString(), 'failed generating qr code');
        }
        assert.ok(Date.now() - started < 5000, `answered after ${Date.now() - started} ms`);
        await waitFor(() => !workers().includes(stopped) && workers().length === before.length, 5000, 'a replacement');
        for (const [i, r] of responses.entries())
          if (r.status === 200) assert.equal((await decodeQrPng(r.body)).text, texts[i]);
      } finally {
        assert.equal(await server.stop(), 0);
      }
    },
  );
});

describe('a panic in Rust, served over HTTP', () => {
  // The testing build (scripts/build-testing.sh) panics on PANIC_TEXT: a
  // panic in the addon or qr_server, a trap in Wasm, a failed qr_cli.
  for (const tier of RUST_TIERS) {
    it(`tier ${tier}: that request gets 500, the next ones are served`, async () => {
      const server = await startTier(tier, { env: TESTING_ENV });
      // The stdio workers answer a panic with its status (serve.rs's PANIC) and live on.
      const workers = () => childPids(server.child.pid).filter((pid) => commName(pid) === 'qr_cli');
      try {
        const before =
          tier === 'cli-pool'
            ? await waitFor(() => workers().length === os.availableParallelism() && workers(), 5000, 'workers')
            : [];
        for (let i = 0; i < 2; i++) {
          const res = await get(server.url, qrcodePath(PANIC_TEXT));
          assert.equal(res.status, 500);
          assert.equal(res.body.toString(), 'failed generating qr code');
          const after = await get(server.url, qrcodePath(`after panic ${i}`));
          assert.equal((await decodeQrPng(after.body)).text, `after panic ${i}`);
        }
        if (tier === 'cli-pool') assert.deepEqual(workers(), before, 'a worker was replaced');
      } finally {
        assert.equal(await server.stop(), 0);
      }
    });
  }
});
