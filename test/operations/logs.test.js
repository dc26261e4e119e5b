'use strict';

// Both servers' logs, read the way a log pipeline reads them: every line on
// stdout one JSON object with `timestamp`, `level` and `message`; the start,
// ready and stop events; a failed request and a refused one with their
// request ids (the client's X-Request-Id, else a new one); the access log
// behind its switch, with the same keys on both servers; and a flood of
// refusals that does not become a flood of lines.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const http = require('node:http');
const readline = require('node:readline');
const { tierCommand } = require('../helpers/servers');
const { qrcodePath } = require('../helpers/http');
const { connect } = require('../helpers/sockets');
const { waitFor } = require('../helpers/processes');
const { PANIC_TEXT, TESTING_ENV } = require('../helpers/testing-build');

// tier-adapters/json-log.js and qr_server/src/log.rs: lines a second per kind of refusal.
const LINES_PER_SECOND = 20;
const ACCESS_KEYS = ['duration_ms', 'event', 'level', 'message', 'method', 'path', 'request_id', 'status', 'tier', 'timestamp'];

/** Starts a tier's server with its stdout read as JSON lines, stderr kept apart. */
async function start(tier, args) {
  const [command, argv] = tierCommand(tier, { args, env: TESTING_ENV });
  const child = spawn(command, argv, { env: { ...process.env, ...TESTING_ENV }, stdio: ['pipe', 'pipe', 'pipe'] });
  const lines = [];
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  readline.createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const records = () => lines.map((line) => {
    try {
      return JSON.parse(line);
    } catch {
      assert.fail(`${tier}: not a JSON line on stdout: ${line}`);
    }
  });
  const ready = await waitFor(() => records().find((r) => r.event === 'ready' && r.url.startsWith('http:')), 15_000, `${tier} ready`);
  return { url: ready.url, child, records, stderr: () => stderr, exited };
}

const get = (url, target, headers = {}) => {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.get({ host: hostname, port, path: target, headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
  });
};

for (const tier of ['napi', 'axum']) {
  describe(`${tier}: JSON logs`, () => {
    it('logs start, ready, each request with --access-log, a failure with its request id, and stop', async () => {
      const server = await start(tier, ['--access-log']);
      try {
        assert.equal(await get(server.url, qrcodePath('logged'), { 'X-Request-Id': 'req-42' }), 200);
        assert.equal(await get(server.url, '/no-such-route?secret=1'), 404);
        assert.equal(await get(server.url, qrcodePath(PANIC_TEXT), { 'X-Request-Id': 'bad"id' }), 500);
        await waitFor(() => server.records().filter((r) => r.event === 'access').length === 3, 5000, 'three access lines');
      } finally {
        server.child.kill('SIGTERM');
      }
      assert.equal(await server.exited, 0, server.stderr());
      const records = server.records();
      for (const r of records) {
        assert.ok(!Number.isNaN(Date.parse(r.timestamp)) && ['INFO', 'WARN', 'ERROR'].includes(r.level) && typeof r.message === 'string', JSON.stringify(r));
      }
      const events = records.map((r) => r.event);
      assert.deepEqual(events.filter((e) => ['start', 'ready', 'stop', 'stopped'].includes(e)), ['start', 'ready', 'stop', 'stopped']);
      assert.match(records.find((r) => r.event === 'ready').message, /listening on http:\/\/127\.0\.0\.1:\d+$/);

      const access = records.filter((r) => r.event === 'access');
      for (const r of access) assert.deepEqual(Object.keys(r).sort(), ACCESS_KEYS, JSON.stringify(r));
      assert.deepEqual(access.map((r) => [r.method, r.path, r.status]), [['GET', '/qrcode', 200], ['GET', '/no-such-route', 404], ['GET', '/qrcode', 500]]);
      assert.equal(access[0].request_id, 'req-42');
      // A request id that is not plain is replaced, not written out.
      const failed = records.find((r) => r.event === 'failed');
      assert.ok(failed, JSON.stringify(records));
      assert.equal(failed.level, 'ERROR');
      assert.equal(failed.status, 500);
      assert.equal(failed.request_id, access[2].request_id);
      assert.match(failed.request_id, /^[\w-]{32,36}$/);
      assert.ok(!JSON.stringify(records).includes('secret'), 'the query is the user\'s data: not logged');
    });

    it('without --access-log, logs no line per request', async () => {
      const server = await start(tier, []);
      try {
        for (let i = 0; i < 5; i++) assert.equal(await get(server.url, qrcodePath(`quiet ${i}`)), 200);
      } finally {
        server.child.kill('SIGTERM');
      }
      assert.equal(await server.exited, 0);
      assert.deepEqual(server.records().map((r) => r.event), ['start', 'ready', 'stop', 'stopped']);
    });

    it('logs refused connections, at most a bounded number of lines a second', async () => {
      const server = await start(tier, ['--max-connections', '1']);
      const held = connect(server.url);
      const refusals = [];
      try {
        await held.connected;
        await new Promise((resolve) => setTimeout(resolve, 100));
        const started = Date.now();
        for (let i = 0; i < 100; i++) refusals.push(connect(server.url));
        const answers = await Promise.all(refusals.map((r) => r.closed));
        const seconds = Math.ceil((Date.now() - started) / 1000) + 1;
        assert.ok(answers.every((a) => a.toString('latin1').startsWith('HTTP/1.1 503')), 'every one refused 503');
        const refused = await waitFor(() => {
          const lines = server.records().filter((r) => r.event === 'refused');
          return lines.length > 0 && lines;
        }, 5000, 'a refused line');
        assert.ok(refused.every((r) => r.reason === 'connection_cap' && r.level === 'WARN'), JSON.stringify(refused));
        assert.ok(refused.length <= LINES_PER_SECOND * seconds, `${refused.length} lines for 100 refusals in ${seconds} s`);
      } finally {
        held.socket.destroy();
        server.child.kill('SIGTERM');
      }
      assert.equal(await server.exited, 0);
    });
  });
}
