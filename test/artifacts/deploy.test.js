'use strict';

// deploy/: real nginx with deploy/nginx.conf in front of two qr_server and
// node-server. /qrcode reaches the Rust servers, the rest node-server, and
// losing one qr_server loses no request.
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const path = require('node:path');
const { startServer, ROOT } = require('../helpers/servers');
const { get, getFresh, qrcodePath } = require('../helpers/http');
const { decodeQrPng } = require('../helpers/decode');
const { childPids, commName, exeName, isAlive, waitFor } = require('../helpers/processes');
const { treePids } = require('../../bench/lib/proc-tree');

const URI_TOO_LONG = 'uri too long (limit 8192 bytes)';

describe('deploy/start.js: nginx -> qr_server x2 + node-server', () => {
  let deploy;
  let qrServers; // [{ url, pid }]
  before(async () => {
    deploy = await startServer(process.execPath, [path.join(ROOT, 'deploy/start.js'), '--port', '0']);
    const line = /^qr_server: (http:.*)$/m.exec(deploy.output())[1];
    qrServers = [...line.matchAll(/(http:\/\/\S+) \(pid (\d+)\)/g)].map(([, url, pid]) => ({ url, pid: Number(pid) }));
  });
  after(async () => {
    const pids = treePids(deploy.child.pid);
    assert.equal(await deploy.stop(), 0);
    assert.deepEqual(
      pids.filter(isAlive).map((pid) => `${commName(pid)} ${pid}`),
      [],
      'processes left behind',
    );
  });

  it("closes slow and idle clients at nginx's timeouts, serving others meanwhile", async () => {
    const { hostname, port } = new URL(deploy.url);
    const opened = Date.now();
    const open = (first) => {
      const socket = net.connect(Number(port), hostname);
      socket.on('error', () => {});
      socket.resume(); // read (and drop) answers, so 'close' can come
      if (first) socket.write(first);
      return { socket, closed: new Promise((r) => socket.on('close', () => r(Date.now() - opened))) };
    };
    const idle = open();
    const keptAlive = open('GET /qrcode?text=once HTTP/1.1\r\nHost: x\r\n\r\n');
    const trickled = open('GET /qrcode?text=slow HTTP/1.1\r\n');
    const timer = setInterval(() => trickled.socket.write('X-Slow: 1\r\n'), 500);
    try {
      const res = await getFresh(deploy.url, qrcodePath('meanwhile'));
      assert.equal((await decodeQrPng(res.body)).text, 'meanwhile');
      const closedAt = await Promise.all([idle, keptAlive, trickled].map((c) => c.closed));
      // client_header_timeout and keepalive_timeout are 10 s.
      for (const at of closedAt) assert.ok(at > 9000 && at < 13_000, `closed after ${at} ms`);
    } finally {
      clearInterval(timer);
    }
  });

  it('runs nginx, two qr_server and node-server', () => {
    const names = childPids(deploy.child.pid).map(exeName).sort();
    assert.deepEqual(names, ['nginx', 'node', 'qr_server', 'qr_server']);
    assert.equal(qrServers.length, 2);
  });

  it('sends /qrcode to qr_server', async () => {
    const text = 'https://example.com/behind/nginx';
    const res = await get(deploy.url, qrcodePath(text));
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'image/png');
    assert.equal((await decodeQrPng(res.body)).text, text);
    const direct = await get(qrServers[0].url, qrcodePath(text));
    assert.ok(res.body.equals(direct.body), 'the bytes qr_server makes');
  });

  it('sends everything else to node-server', async () => {
    const res = await get(deploy.url, '/healthz');
    assert.equal(res.status, 200);
    assert.equal(JSON.parse(res.body).tier, 'js');
  });

  it('answers bad requests as every tier does', async () => {
    const cases = [
      ['/qrcode?text=%FF', 400, 'text must be valid UTF-8'],
      [qrcodePath('x'.repeat(513)), 400, 'text must be <= 512 bytes'],
      [qrcodePath('x'.repeat(9000)), 414, URI_TOO_LONG], // qr_server's answer
      [qrcodePath('x'.repeat(20000)), 414, URI_TOO_LONG], // nginx's own, same text
    ];
    for (const [p, status, body] of cases) {
      const res = await getFresh(deploy.url, p);
      assert.equal(res.status, status, p.slice(0, 40));
      assert.equal(res.body.toString(), body);
    }
  });

  it('keeps every request succeeding when one qr_server is killed', async () => {
    const [victim, survivor] = qrServers;
    process.kill(victim.pid, 'SIGKILL');
    await waitFor(() => !isAlive(victim.pid), 2000, 'the kill');
    const texts = Array.from({ length: 100 }, (_, i) => `after the kill ${i}`);
    const sequential = [];
    for (const t of texts.slice(0, 20)) sequential.push(await get(deploy.url, qrcodePath(t)));
    const concurrent = await Promise.all(texts.slice(20).map((t) => getFresh(deploy.url, qrcodePath(t))));
    const responses = [...sequential, ...concurrent];
    assert.deepEqual(
      responses.map((r) => r.status),
      texts.map(() => 200),
    );
    for (const i of [0, 19, 99]) assert.equal((await decodeQrPng(responses[i].body)).text, texts[i]);
    assert.ok(isAlive(survivor.pid));
  });
});
