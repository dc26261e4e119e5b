'use strict';

// The operator's surfaces and fairness, on the real servers over real
// loopback sockets: GET /metrics answered only on the operator's listener
// (--metrics-host/--metrics-port, both servers), never on the public port;
// a client looping on /metrics while another's /qrcode waits no longer than
// under the other floods (adversarial.test.js); on qr_server, one client
// address holding its whole share of the connections
// (--max-connections-per-client) while another address is still served,
// and the share given back when its connections close (node-server's is in
// adversarial.test.js).
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const net = require('node:net');
const { operatorOrigin, startTier } = require('../helpers/servers');
const { getFresh, qrcodePath, victim, VICTIM_P50_MS, VICTIM_MAX_MS } = require('../helpers/http');
const { childPids, exeName } = require('../helpers/processes');
const { sampleTree } = require('../../bench/lib/proc-tree');

const PER_CLIENT = 8;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A connection from `localAddress` (any of 127/8 is this host's) that sends nothing yet. */
function open(url, localAddress) {
  const { hostname, port } = new URL(url);
  const socket = net.connect({ host: hostname, port: Number(port), localAddress });
  const chunks = [];
  socket.on('data', (c) => chunks.push(c));
  socket.on('error', () => {});
  const closed = new Promise((resolve) => socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1'))));
  const connected = new Promise((resolve) => socket.once('connect', resolve));
  return { socket, chunks, closed, connected };
}

/** The status line of one GET /qrcode from `localAddress`. */
async function qrcodeFrom(url, localAddress, text) {
  const connection = open(url, localAddress);
  await connection.connected;
  connection.socket.write(`GET ${qrcodePath(text)} HTTP/1.1\r\nHost: qr\r\nConnection: close\r\n\r\n`);
  return (await connection.closed).split('\r\n')[0];
}

// node-server in a cluster too: there the primary collects every worker's registry.
const SERVERS = [
  ['napi', {}],
  ['axum-proxy', { workers: 2 }],
  ['axum', {}],
];
const named = (tier, { workers }) => (workers ? `${tier}, ${workers} workers` : tier);

describe("/metrics only on the operator's listener", () => {
  for (const [tier, options] of SERVERS) {
    it(`${named(tier, options)}: answers /metrics on --metrics-port and 404 on the public port`, async () => {
      const server = await startTier(tier, options);
      try {
        const operator = operatorOrigin(server);
        assert.equal(new URL(operator).hostname, '127.0.0.1', 'loopback by default');
        assert.notEqual(new URL(operator).port, new URL(server.url).port);
        assert.equal((await getFresh(server.url, qrcodePath('public'))).status, 200);
        const onPublic = await getFresh(server.url, '/metrics');
        assert.equal(onPublic.status, 404);
        assert.equal(onPublic.body.length, 0);
        const scraped = await getFresh(operator, '/metrics');
        assert.equal(scraped.status, 200);
        const text = scraped.body.toString();
        assert.match(text, new RegExp(`^http_requests_total\\{route="/qrcode",status="200",tier="${tier}"\\} 1$`, 'm'));
        assert.match(text, /^qr_refusals_total\{reason="client_cap"\} 0$/m);
        const health = await getFresh(operator, '/healthz');
        assert.equal(health.status, 200);
        assert.equal(JSON.parse(health.body).tier, tier);
        // Only what operators read: no QR codes there.
        assert.equal((await getFresh(operator, qrcodePath('operator'))).status, 404);
        // Its own answers are counted as the public port's are (a scrape within 250 ms shares the last collection).
        await sleep(300);
        const again = (await getFresh(operator, '/metrics')).body.toString();
        for (const [route, status] of [
          ['/metrics', 200],
          ['/healthz', 200],
          ['/qrcode', 404],
        ]) {
          const series = `http_requests_total{route="${route}",status="${status}",tier="${tier}"} 1`;
          assert.ok(again.split('\n').includes(series), `no ${series} in:\n${again}`);
        }
      } finally {
        await server.stop();
      }
    });
  }
});

// Scrapers that loop as fast as they are answered, eight at once, each on
// a kept-alive connection: the operator's listener shares one collection
// among every scrape within 250 ms, so the flood costs at most a few
// collections a second, whatever its rate.
const SCRAPERS = 8;
const FLOOD_MS = 3000;
// In a cluster, what the flood may cost the workers serving /qrcode, in CPU
// seconds over the flood, both together: a fifth of a core. With one
// collection shared per 250 ms they spent 0.16 s; with none shared (each
// scrape a collection from every worker), 2.15 s.
const MAX_WORKERS_CPU_S = 0.6;

/** CPU seconds of a cluster's node workers (none on one process). */
const workersCpu = (pid) =>
  childPids(pid)
    .filter((child) => exeName(child)?.startsWith('node'))
    .reduce((sum, child) => sum + sampleTree(child).cpuSeconds, 0);

/** GETs `url` in a loop on one kept-alive connection until `running()` is false: the statuses seen. */
async function scrapeLoop(url, running) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const statuses = [];
  try {
    while (running()) {
      statuses.push(
        await new Promise((resolve) => {
          http
            .get(url, { agent }, (res) => res.resume().on('end', () => resolve(res.statusCode)))
            .on('error', (err) => resolve(err.code));
        }),
      );
    }
  } finally {
    agent.destroy();
  }
  return statuses;
}

describe('a client looping on /metrics', () => {
  for (const [tier, options] of SERVERS) {
    it(`${named(tier, options)}: another client's /qrcode waits within the flood figures`, async () => {
      const server = await startTier(tier, options);
      try {
        const metricsUrl = `${operatorOrigin(server)}/metrics`;
        for (let i = 0; i < 20; i++) assert.equal((await getFresh(server.url, qrcodePath(`warm ${i}`))).status, 200);
        const cpuBefore = workersCpu(server.child.pid);
        let running = true;
        const scrapers = Array.from({ length: SCRAPERS }, () => scrapeLoop(metricsUrl, () => running));
        const client = victim(server.url);
        await new Promise((resolve) => setTimeout(resolve, FLOOD_MS));
        running = false;
        const seen = await client.stop();
        const scrapes = (await Promise.all(scrapers)).flat();
        const workersSpent = workersCpu(server.child.pid) - cpuBefore;
        const waits = `victim p50 ${seen.p50.toFixed(1)} ms, max ${seen.max.toFixed(1)} ms over ${seen.count}`;
        const spent = options.workers ? `, workers ${workersSpent.toFixed(2)} CPU s` : '';
        console.log(
          `# /metrics flood, ${named(tier, options)}: ${scrapes.length} scrapes in ${FLOOD_MS} ms, ${waits}${spent}`,
        );
        assert.ok(
          scrapes.every((status) => status === 200),
          `scrape statuses ${[...new Set(scrapes)]}`,
        );
        // A flood, not a trickle: hundreds of scrapes a second.
        assert.ok(scrapes.length >= 300, `only ${scrapes.length} scrapes`);
        assert.deepEqual(new Set(seen.statuses), new Set([200]), `victim statuses ${[...new Set(seen.statuses)]}`);
        assert.ok(seen.p50 < VICTIM_P50_MS, `victim p50 ${seen.p50} ms`);
        assert.ok(seen.max < VICTIM_MAX_MS, `victim max ${seen.max} ms`);
        if (options.workers) assert.ok(workersSpent <= MAX_WORKERS_CPU_S, `the workers spent ${workersSpent} CPU s`);
      } finally {
        await server.stop();
      }
    });
  }
});

describe("qr_server: one client's share of the connections", () => {
  it(`refuses a client past ${PER_CLIENT} connections while another address is served`, async () => {
    const server = await startTier('axum', {
      args: ['--max-connections-per-client', String(PER_CLIENT), '--max-connections', '64'],
    });
    const held = [];
    try {
      // The hog opens its whole share and sends nothing.
      for (let i = 0; i < PER_CLIENT; i++) {
        const connection = open(server.url, '127.0.0.1');
        held.push(connection);
        await connection.connected;
      }
      await sleep(200);
      assert.ok(
        held.every((c) => c.chunks.length === 0),
        'a connection within the share was answered',
      );
      // One more from the same address: 503 and closed.
      const past = open(server.url, '127.0.0.1');
      const refusal = await past.closed;
      assert.match(refusal, /^HTTP\/1\.1 503 /);
      assert.match(refusal, /server busy$/);
      // Another client is served meanwhile.
      assert.equal(await qrcodeFrom(server.url, '127.0.0.2', 'another client'), 'HTTP/1.1 200 OK');
      // The hog's share comes back as its connections close.
      held.pop().socket.destroy();
      await sleep(100);
      assert.equal(await qrcodeFrom(server.url, '127.0.0.1', 'the hog again'), 'HTTP/1.1 200 OK');
      const metrics = (await getFresh(operatorOrigin(server), '/metrics')).body.toString();
      assert.match(metrics, /^qr_refusals_total\{reason="client_cap"\} 1$/m);
      assert.match(metrics, /^qr_refusals_total\{reason="connection_cap"\} 0$/m);
    } finally {
      for (const { socket } of held) socket.destroy();
      await server.stop();
    }
  });
});
