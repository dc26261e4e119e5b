'use strict';

// GET /metrics on both servers' operator's listeners, read the way an operator reads it: a real
// Prometheus server (Debian's `prometheus`) scrapes node-server in cluster
// mode (two workers, a supervised upstream) and qr_server, and the series come
// back through its query API: the requests each server answered, summed over
// the cluster's workers; the refusals past the connection cap; the worker and
// upstream restarts; the same names and label names on both. And the off
// switch: --no-metrics leaves no /metrics on either.
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ROOT, startServer, startTier } = require('../helpers/servers');
const { getFresh, qrcodePath } = require('../helpers/http');
const { connect } = require('../helpers/sockets');
const { childPids, exeName, waitFor, within } = require('../helpers/processes');
const { freePort } = require('../../deploy/start');

const REQUESTS = 30;
const NOT_FOUND = 3;

function hasPrometheus() {
  try {
    execFileSync('prometheus', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const SKIP = !hasPrometheus() && 'prometheus is not installed (scripts/setup.sh installs it)';

/**
 * Opens connections that send nothing until one is refused (503 at once),
 * then closes them all. Returns how many were refused.
 */
async function refuseOnePastTheCap(url, most = 12) {
  const held = [];
  let refused = 0;
  try {
    while (refused === 0 && held.length < most) {
      const connection = connect(url);
      held.push(connection);
      await connection.connected;
      await new Promise((resolve) => setTimeout(resolve, 150));
      if (Buffer.concat(connection.chunks).toString('latin1').startsWith('HTTP/1.1 503')) refused++;
    }
  } finally {
    for (const { socket } of held) socket.destroy();
  }
  return refused;
}

/** A server's operator's listener, from its start log line (`... metrics on http://ADDR/metrics`). */
function metricsUrl(server) {
  const match = /metrics on (http:\/\/[^\s"]+)/.exec(server.output());
  assert.ok(match, `no metrics URL in the start line of:\n${server.output()}`);
  return match[1];
}

/** The pids of node-server's workers and of the qr_server it supervises. */
function children(primary) {
  const pids = childPids(primary);
  return {
    workers: pids.filter((pid) => exeName(pid)?.startsWith('node')),
    upstream: pids.filter((pid) => exeName(pid) === 'qr_server'),
  };
}

/** Sends what the assertions count: REQUESTS QR codes and NOT_FOUND unknown paths, each on a connection of its own. */
async function load(url) {
  for (let i = 0; i < REQUESTS; i++) {
    const { status } = await getFresh(url, qrcodePath(`metrics ${i}`));
    assert.equal(status, 200);
  }
  for (let i = 0; i < NOT_FOUND; i++) assert.equal((await getFresh(url, '/no-such-route')).status, 404);
}

describe('metrics scraped by a real Prometheus', { skip: SKIP }, () => {
  let node;
  let axum;
  let prometheus;
  let promUrl;
  let storage;
  const refused = {};

  before(async () => {
    node = await startTier('axum-proxy', { workers: 2, args: ['--max-connections', '3'] });
    axum = await startTier('axum', { args: ['--max-connections', '3'] });

    // One worker and the upstream qr_server die; node-server replaces both.
    const { workers, upstream } = children(node.child.pid);
    assert.equal(workers.length, 2);
    assert.equal(upstream.length, 1);
    process.kill(workers[0], 'SIGKILL');
    process.kill(upstream[0], 'SIGKILL');
    await waitFor(
      () => {
        const now = children(node.child.pid);
        return (
          now.workers.length === 2 &&
          !now.workers.includes(workers[0]) &&
          now.upstream.length === 1 &&
          now.upstream[0] !== upstream[0]
        );
      },
      10_000,
      'a new worker and a new upstream',
    );
    await waitFor(
      () =>
        getFresh(node.url, qrcodePath('up again')).then(
          (r) => r.status === 200,
          () => false,
        ),
      10_000,
      'node-server serving again',
    );

    // Both workers answer (connections go round-robin), so the sum is over both.
    // (the new worker serves once it listens).
    const pids = new Set();
    await waitFor(
      async () => pids.add(JSON.parse((await getFresh(node.url, '/healthz')).body).pid).size === 2,
      10_000,
      'both workers serving',
    );

    await load(node.url);
    await load(axum.url);
    refused.node = await refuseOnePastTheCap(node.url);
    refused.axum = await refuseOnePastTheCap(axum.url);
    assert.equal(refused.node, 1, 'node-server refused a connection past its cap');
    assert.equal(refused.axum, 1, 'qr_server refused a connection past its cap');

    storage = fs.mkdtempSync(path.join(os.tmpdir(), 'qr-prometheus-'));
    const target = (url) => new URL(url).host;
    fs.writeFileSync(
      path.join(storage, 'prometheus.yml'),
      [
        'global: { scrape_interval: 1s, evaluation_interval: 1s }',
        'scrape_configs:',
        // Both servers' /metrics are on their operator's listeners, not the public ports.
        `  - { job_name: node-server, static_configs: [ { targets: ['${target(metricsUrl(node))}'] } ] }`,
        `  - { job_name: qr_server, static_configs: [ { targets: ['${target(metricsUrl(axum))}'] } ] }`,
        '',
      ].join('\n'),
    );
    const port = await freePort();
    promUrl = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      'prometheus',
      [
        `--config.file=${path.join(storage, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(storage, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let log = '';
    prometheus.stderr.on('data', (chunk) => (log = (log + chunk).slice(-4000)));
    await waitFor(
      () =>
        fetch(`${promUrl}/-/ready`).then(
          (r) => r.ok,
          () => false,
        ),
      20_000,
      `prometheus ready:\n${log}`,
    );
    // Until both targets have been scraped after the load.
    await waitFor(
      async () =>
        (await query('up == 1')).length === 2 && (await query('http_requests_total{route="other"}')).length === 2,
      20_000,
      'both targets scraped',
    );
  });

  after(async () => {
    if (prometheus && prometheus.exitCode === null) {
      prometheus.kill('SIGTERM');
      await within(new Promise((resolve) => prometheus.once('exit', resolve)), 10_000, 'prometheus to stop').catch(() =>
        prometheus.kill('SIGKILL'),
      );
    }
    if (storage) fs.rmSync(storage, { recursive: true, force: true });
    await Promise.all([node?.stop(), axum?.stop()]);
  });

  /** The instant vector of a PromQL expression: [{ metric, value }]. */
  async function query(expression) {
    const response = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(expression)}`);
    const body = await response.json();
    assert.equal(body.status, 'success', JSON.stringify(body));
    return body.data.result.map(({ metric, value }) => ({ metric, value: Number(value[1]) }));
  }
  /** The value of an expression that selects one series per job. */
  async function byJob(expression) {
    return Object.fromEntries((await query(expression)).map(({ metric, value }) => [metric.job, value]));
  }

  it("counts and times each request, summed over node-server's workers", async () => {
    assert.deepEqual(await byJob('http_requests_total{route="/qrcode",status="200"}'), {
      'node-server': REQUESTS + 1,
      qr_server: REQUESTS,
    });
    assert.deepEqual(await byJob('http_requests_total{route="other",status="404"}'), {
      'node-server': NOT_FOUND,
      qr_server: NOT_FOUND,
    });
    assert.deepEqual(await byJob('http_request_duration_seconds_count{route="/qrcode"}'), {
      'node-server': REQUESTS + 1,
      qr_server: REQUESTS,
    });
    const tiers = await query('http_requests_total{route="/qrcode"}');
    assert.deepEqual(tiers.map((s) => [s.metric.job, s.metric.tier]).sort(), [
      ['node-server', 'axum-proxy'],
      ['qr_server', 'axum'],
    ]);
    // Every answer took under the largest finite bucket: the +Inf and 10 s buckets agree.
    const slow = await query(
      'http_request_duration_seconds_bucket{le="+Inf"} - ignoring(le) http_request_duration_seconds_bucket{le="10"}',
    );
    assert.ok(slow.length > 0 && slow.every((s) => s.value === 0), JSON.stringify(slow));
  });

  it("counts the refusals past the connection cap and node-server's restarts", async () => {
    assert.deepEqual(await byJob('qr_refusals_total{reason="connection_cap"}'), {
      'node-server': refused.node,
      qr_server: refused.axum,
    });
    assert.deepEqual(await byJob('qr_refusals_total{reason="queue_full"}'), { 'node-server': 0, qr_server: 0 });
    const restarts = Object.fromEntries(
      (await query('qr_restarts_total{job="node-server"}')).map((s) => [s.metric.kind, s.value]),
    );
    assert.deepEqual(restarts, { worker: 1, upstream: 1, child: 0 });
  });

  it('has the gauges and the event-loop delay', async () => {
    for (const name of ['qr_generations_running', 'qr_generations_queued', 'http_open_connections']) {
      assert.deepEqual(Object.keys(await byJob(name)).sort(), ['node-server', 'qr_server'], name);
    }
    // Each gauge counts its server's public connections; Prometheus's, on the
    // operator's listener, is not one.
    assert.deepEqual(await byJob('http_open_connections'), { 'node-server': 0, qr_server: 0 });
    assert.equal((await query('nodejs_eventloop_lag_p99_seconds{job="node-server"}')).length, 1);
  });

  it('gives what both servers measure the same names and label names', async () => {
    const response = await fetch(
      `${promUrl}/api/v1/series?match[]=${encodeURIComponent('{__name__=~"http_.+|qr_.+"}')}`,
    );
    const families = { 'node-server': new Map(), qr_server: new Map() };
    for (const labels of (await response.json()).data) {
      const { __name__: name, job, instance, le, ...rest } = labels;
      families[job].set(name, Object.keys(rest).sort().join(','));
    }
    const rust = [...families.qr_server.keys()].sort();
    assert.deepEqual(rust, [
      'http_open_connections',
      'http_request_duration_seconds_bucket',
      'http_request_duration_seconds_count',
      'http_request_duration_seconds_sum',
      'http_requests_total',
      'qr_generations_queued',
      'qr_generations_running',
      'qr_log_lines_dropped_total',
      'qr_refusals_total',
    ]);
    for (const name of rust) assert.equal(families['node-server'].get(name), families.qr_server.get(name), name);
  });
});

describe('the metrics off switch', () => {
  for (const tier of ['napi', 'axum']) {
    it(`${tier}: --no-metrics leaves no /metrics and no operator's listener, and serves as before`, async () => {
      const server = await startTier(tier, { args: ['--no-metrics'] });
      try {
        assert.doesNotMatch(server.output(), /metrics on /);
        const metrics = await getFresh(server.url, '/metrics');
        assert.equal(metrics.status, 404);
        assert.equal(metrics.body.length, 0);
        assert.equal((await getFresh(server.url, qrcodePath('off'))).status, 200);
      } finally {
        await server.stop();
      }
    });
  }
});

describe("the benchmark's event-loop route", () => {
  const args = [path.join(ROOT, 'node-server/server.js'), '--tier', 'napi', '--port', '0'];
  const server = (env) => startServer(process.execPath, args, { env });

  it('is off unless asked: any client could reset its window', async () => {
    const plain = await server({});
    try {
      for (const target of ['/metrics/event-loop', '/metrics/event-loop?reset=1']) {
        const answer = await getFresh(plain.url, target);
        assert.equal(answer.status, 404, target);
        assert.equal(answer.body.length, 0, target);
      }
    } finally {
      await plain.stop();
    }
  });

  it('answers with the window when asked (QR_EVENT_LOOP_ROUTE=on, or --event-loop-route)', async () => {
    const asked = await server({ QR_EVENT_LOOP_ROUTE: 'on' });
    try {
      const answer = await getFresh(asked.url, '/metrics/event-loop?reset=1');
      assert.equal(answer.status, 200);
      const window = JSON.parse(answer.body.toString());
      assert.equal(window.pid, asked.child.pid);
      assert.ok(window.p99 >= 0 && window.resolutionMs > 0);
    } finally {
      await asked.stop();
    }
  });
});
