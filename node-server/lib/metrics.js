'use strict';

// Prometheus metrics with prom-client: the names and labels qr_server uses
// for the same things (qr_server/src/metrics.rs; docs/operations.md lists them).
const { Registry, Counter, Gauge, collectDefaultMetrics } = require('prom-client');
const { createRequestMetrics } = require('tier-adapters/prometheus');

// Seconds; the same bounds as qr_server's histogram.
const DURATION_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 2.5, 10];
// Routes get a label each; any other path shares `other`, so that no client
// can grow the series without bound.
const ROUTES = new Set(['/qrcode', '/healthz', '/metrics']);
const OTHER = 'other';
const REFUSALS = ['connection_cap', 'client_cap', 'queue_full'];

/**
 * One process's registry. `record: false` is the off switch: no request is
 * counted or timed and there is no /metrics; refusals and restarts (rare) are
 * still counted, for a log line or a later switch. `droppedLines()`: the
 * log's lines dropped so far (tier-adapters/log), read at each scrape.
 * @param {{ record?: boolean, droppedLines?: () => number }} [options]
 */
function createMetrics({ record = true, droppedLines = () => 0 } = {}) {
  const registry = new Registry();
  const registers = [registry];
  const requests = createRequestMetrics({ registry, buckets: DURATION_BUCKETS, routes: [...ROUTES, OTHER] });
  const refusals = new Counter({
    name: 'qr_refusals_total',
    help: 'Requests and connections refused (503), by reason.',
    labelNames: ['reason'],
    registers,
  });
  for (const reason of REFUSALS) refusals.inc({ reason }, 0);
  const restarts = new Counter({
    name: 'qr_restarts_total',
    help: 'Processes restarted after they exited: child (cli-pool), worker (cluster), upstream (qr_server).',
    labelNames: ['kind'],
    registers,
  });
  for (const kind of ['child', 'worker', 'upstream']) restarts.inc({ kind }, 0);
  let droppedSeen = 0;
  new Counter({
    name: 'qr_log_lines_dropped_total',
    help: "Log lines dropped: the log's reader stopped reading past the bound, or hung up.",
    registers,
    collect() {
      const dropped = droppedLines();
      this.inc(dropped - droppedSeen);
      droppedSeen = dropped;
    },
  });
  // Read at each scrape from what `watch` was given: nothing per request.
  let sources = { tier: null, openConnections: () => 0 };
  let tier = '';
  // Read from `this` (the response): one listener for every response, no closure each.
  function answered() {
    const url = this.req.url;
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    requests.record(ROUTES.has(path) ? path : OTHER, this.statusCode, (performance.now() - this.startedAt) / 1000);
  }
  new Gauge({
    name: 'qr_generations_running',
    help: 'QR codes being generated.',
    labelNames: ['tier'],
    registers,
    collect() {
      if (sources.tier) this.set({ tier }, sources.tier.running ?? 0);
    },
  });
  new Gauge({
    name: 'qr_generations_queued',
    help: 'Requests waiting for a generation slot.',
    labelNames: ['tier'],
    registers,
    collect() {
      if (sources.tier) this.set({ tier }, sources.tier.queued ?? 0);
    },
  });
  new Gauge({
    name: 'http_open_connections',
    help: 'Open client connections.',
    registers,
    collect() {
      this.set(sources.openConnections());
    },
  });
  // Event-loop delay (nodejs_eventloop_lag_*), heap, GC, CPU and the rest.
  if (record) collectDefaultMetrics({ register: registry });
  /** The `tier` label of every series from now on. */
  const label = (name) => {
    tier = name;
    requests.tier = name;
  };

  return {
    registry,
    record,
    /**
     * What the gauges read from: the tier (`running`, `queued`) and the
     * server's open connections; `name` is the tier's label.
     * @param {{ name: string, tier: { running?: number, queued?: number }, openConnections: () => number }} watched
     */
    watch({ name, tier: watched, openConnections }) {
      label(name);
      sources = { tier: watched, openConnections };
    },
    /** The `tier` label alone, for a process that serves no tier (a cluster's primary). */
    label,
    /** Counts and times `req` once its answer is written. */
    observe(_req, res) {
      if (!record) return;
      res.startedAt = performance.now();
      res.on('finish', answered);
    },
    /** @param {'connection_cap' | 'client_cap' | 'queue_full'} reason */
    refused(reason) {
      refusals.inc({ reason });
    },
    /** @param {'child' | 'worker' | 'upstream'} kind */
    restarted(kind) {
      restarts.inc({ kind });
    },
  };
}

module.exports = { createMetrics, DURATION_BUCKETS };
