'use strict';

// Both servers' logs, read the way a log pipeline reads them: every line on
// stdout one JSON object with `timestamp`, `level` and `message`; the start,
// ready and stop events; a failed request and a refused one with their
// request ids (the client's X-Request-Id, else a new one); the access log
// behind its switch, with the same keys on both servers; a flood of
// refusals that does not become a flood of lines; and a log reader that
// stops reading, which must cost lines (dropped, counted), never the
// serving nor unbounded memory.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const http = require('node:http');
const readline = require('node:readline');
const { tierCommand } = require('../helpers/servers');
const { qrcodePath } = require('../helpers/http');
const { connect } = require('../helpers/sockets');
const { waitFor, within } = require('../helpers/processes');
const { victim, VICTIM_P50_MS, VICTIM_MAX_MS } = require('../helpers/http');
const { sampleTree } = require('../../bench/lib/proc-tree');
const { PANIC_TEXT, TESTING_ENV } = require('../helpers/testing-build');

// tier-adapters/json-log.js and qr_server/src/limits.rs (LOG_LINES_PER_SECOND): lines a second per kind of refusal.
const LINES_PER_SECOND = 20;
const ACCESS_KEYS = [
  'duration_ms',
  'event',
  'level',
  'message',
  'method',
  'path',
  'request_id',
  'status',
  'tier',
  'timestamp',
];

/** Starts a tier's server with its stdout read as JSON lines, stderr kept apart. */
async function start(tier, args) {
  const [command, argv] = tierCommand(tier, { args, env: TESTING_ENV });
  const child = spawn(command, argv, { env: { ...process.env, ...TESTING_ENV }, stdio: ['pipe', 'pipe', 'pipe'] });
  const lines = [];
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  readline.createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const records = () =>
    lines.map((line) => {
      try {
        return JSON.parse(line);
      } catch {
        return assert.fail(`${tier}: not a JSON line on stdout: ${line}`);
      }
    });
  const ready = await waitFor(
    () => records().find((r) => r.event === 'ready' && r.url.startsWith('http:')),
    15_000,
    `${tier} ready`,
  );
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
        await waitFor(
          () => server.records().filter((r) => r.event === 'access').length === 3,
          5000,
          'three access lines',
        );
      } finally {
        server.child.kill('SIGTERM');
      }
      assert.equal(await server.exited, 0, server.stderr());
      const records = server.records();
      for (const r of records) {
        assert.ok(
          !Number.isNaN(Date.parse(r.timestamp)) &&
            ['INFO', 'WARN', 'ERROR'].includes(r.level) &&
            typeof r.message === 'string',
          JSON.stringify(r),
        );
      }
      const events = records.map((r) => r.event);
      assert.deepEqual(
        events.filter((e) => ['start', 'ready', 'stop', 'stopped'].includes(e)),
        ['start', 'ready', 'stop', 'stopped'],
      );
      assert.match(records.find((r) => r.event === 'ready').message, /listening on http:\/\/127\.0\.0\.1:\d+$/);

      const access = records.filter((r) => r.event === 'access');
      for (const r of access) assert.deepEqual(Object.keys(r).sort(), ACCESS_KEYS, JSON.stringify(r));
      assert.deepEqual(
        access.map((r) => [r.method, r.path, r.status]),
        [
          ['GET', '/qrcode', 200],
          ['GET', '/no-such-route', 404],
          ['GET', '/qrcode', 500],
        ],
      );
      assert.equal(access[0].request_id, 'req-42');
      // A request id that is not plain is replaced, not written out.
      const failed = records.find((r) => r.event === 'failed');
      assert.ok(failed, JSON.stringify(records));
      assert.equal(failed.level, 'ERROR');
      assert.equal(failed.status, 500);
      assert.equal(failed.request_id, access[2].request_id);
      assert.match(failed.request_id, /^[\w-]{32,36}$/);
      assert.ok(!JSON.stringify(records).includes('secret'), "the query is the user's data: not logged");
    });

    it('without --access-log, logs no line per request', async () => {
      const server = await start(tier, []);
      try {
        for (let i = 0; i < 5; i++) assert.equal(await get(server.url, qrcodePath(`quiet ${i}`)), 200);
      } finally {
        server.child.kill('SIGTERM');
      }
      assert.equal(await server.exited, 0);
      assert.deepEqual(
        server.records().map((r) => r.event),
        ['start', 'ready', 'stop', 'stopped'],
      );
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
        assert.ok(
          answers.every((a) => a.toString('latin1').startsWith('HTTP/1.1 503')),
          'every one refused 503',
        );
        const refused = await waitFor(
          () => {
            const lines = server.records().filter((r) => r.event === 'refused');
            return lines.length > 0 && lines;
          },
          5000,
          'a refused line',
        );
        assert.ok(
          refused.every((r) => r.reason === 'connection_cap' && r.level === 'WARN'),
          JSON.stringify(refused),
        );
        assert.ok(
          refused.length <= LINES_PER_SECOND * seconds,
          `${refused.length} lines for 100 refusals in ${seconds} s`,
        );
      } finally {
        held.socket.destroy();
        server.child.kill('SIGTERM');
      }
      assert.equal(await server.exited, 0);
    });
  });
}

// Requests with long paths (each access line carries its path) from a few
// kept-alive connections, enough to pass both servers' bounds on what waits
// to be written: node-server's 8 MiB (tier-adapters/line-writer.js),
// qr_server's 10,000 lines (LOG_BUFFERED_LINES in qr_server/src/limits.rs).
const STALLED_REQUESTS = 12_000;
const LONG_PATH = `/${'p'.repeat(6000)}`;
const CONNECTIONS = 8;
const MB = 1e6;
const MAX_GROWTH_BYTES = 100 * MB;

/** GETs LONG_PATH `count` times over CONNECTIONS kept-alive connections: the statuses. */
async function longPathLoad(url, count) {
  const { hostname, port } = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const statuses = [];
  let next = 0;
  const one = () =>
    new Promise((resolve) => {
      http
        .get({ host: hostname, port, path: LONG_PATH, agent }, (res) =>
          res.resume().on('end', () => resolve(res.statusCode)),
        )
        .on('error', (err) => resolve(err.code));
    });
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next++ < count) statuses.push(await one());
    }),
  );
  agent.destroy();
  return statuses;
}

for (const tier of ['napi', 'axum']) {
  describe(`${tier}: a log reader that stopped reading`, () => {
    it(`drops and counts lines past its bound, and serves on with memory bounded`, async () => {
      const server = await start(tier, ['--access-log']);
      try {
        const metricsUrl = server.records().find((r) => r.event === 'start').metrics_url;
        // The reader stops: the pipe fills, then whatever the server lets wait.
        server.child.stdout.pause();
        const idle = sampleTree(server.child.pid).rss;
        let peak = idle;
        const sampler = setInterval(() => (peak = Math.max(peak, sampleTree(server.child.pid).rss)), 100);
        const client = victim(server.url);
        const statuses = await within(
          longPathLoad(server.url, STALLED_REQUESTS),
          60_000,
          'the long-path requests answered',
        );
        const seen = await client.stop();
        clearInterval(sampler);
        const growth = peak - idle;
        const metrics = await (await fetch(metricsUrl)).text();
        const dropped = Number(/^qr_log_lines_dropped_total (\d+)$/m.exec(metrics)?.[1]);
        const waits = `victim p50 ${seen.p50.toFixed(1)} ms, max ${seen.max.toFixed(1)} ms over ${seen.count}`;
        console.log(
          `# stalled log reader, ${tier}: ${dropped} of ${STALLED_REQUESTS} lines dropped, ` +
            `+${(growth / MB).toFixed(1)} MB, ${waits}`,
        );
        assert.deepEqual(new Set(statuses), new Set([404]));
        assert.ok(dropped > 0, `no line counted dropped:\n${metrics}`);
        assert.ok(growth < MAX_GROWTH_BYTES, `grew ${(growth / MB).toFixed(1)} MB`);
        assert.deepEqual(new Set(seen.statuses), new Set([200]), `victim statuses ${[...new Set(seen.statuses)]}`);
        assert.ok(seen.p50 < VICTIM_P50_MS, `victim p50 ${seen.p50} ms`);
        assert.ok(seen.max < VICTIM_MAX_MS, `victim max ${seen.max} ms`);
      } finally {
        // The reader comes back: what waited is written, then the lines of the stop.
        server.child.stdout.resume();
        // Until a quarter second passes with no new line (at most 20 s).
        for (let seen = -1, tries = 0; tries < 80; tries++) {
          const now = server.records().length;
          if (now === seen) break;
          seen = now;
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
        server.child.kill('SIGTERM');
      }
      assert.equal(await server.exited, 0);
      const events = await waitFor(
        () => {
          const all = server.records().map((r) => r.event);
          return all.at(-1) === 'stopped' && all;
        },
        5000,
        'the stopped line',
      );
      assert.deepEqual(events.slice(-2), ['stop', 'stopped']);
    });
  });
}
