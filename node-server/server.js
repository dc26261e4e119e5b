#!/usr/bin/env node
'use strict';

// node-server --tier <name> [--host 127.0.0.1] [--port 42069] [--workers N] [--max-queue N] [--upstream URL]
const cluster = require('node:cluster');
const { parseArgs } = require('node:util');
const { createApp } = require('./app');
const { createMetrics } = require('./lib/metrics');
const { createLog } = require('tier-adapters/log');
const { serveClusterMetrics, clusterMetricsClient, listenMetrics } = require('tier-adapters/prometheus');
const { createArrivals } = require('tier-adapters');
const {
  createBackoff,
  createHttpServer,
  HTTP_LIMITS: LIMITS,
  openFileLimit,
  connectionCap,
} = require('tier-adapters/server');
const { loadTier, tierNames } = require('./tiers');

const SHUTDOWN_TIMEOUT_MS = 10_000;
// How long an exit waits for the log's last lines to be written (a thread
// writes them: tier-adapters/log); a reader that stopped reading gets no more.
const LOG_FLUSH_MS = 1_000;

const USAGE = `Usage: node node-server/server.js --tier <name> [options]

  --tier NAME      one of: ${tierNames.join(', ')} (env QR_TIER);
                   auto: napi if its binary loads, else wasm, else js
  --host HOST      listen address (env HOST, default 127.0.0.1)
  --port PORT      listen port, 0 for a free one (env PORT, default 42069)
  --workers N      N > 1 runs a cluster of N processes (env WORKERS, default 1)
  --max-queue N    requests that may wait for a generation slot per process;
                   past it 503 "server busy" (env QR_MAX_QUEUE, default 512)
  --max-connections N
                   open connections per process; past it 503 and close
                   (env QR_MAX_CONNECTIONS, default 4096, fewer if the
                   open-file limit leaves room for fewer; said at start)
  --max-connections-per-client N
                   open connections per client address, per process; past it
                   503 and close (env QR_MAX_CONNECTIONS_PER_CLIENT, default
                   0: no limit but --max-connections). Behind a proxy every
                   client is the proxy's address: limit there (nginx limit_conn)
  --metrics-host HOST
                   address of the operator's listener, GET /metrics and
                   GET /healthz (env METRICS_HOST, default 127.0.0.1: an
                   operator widens it, never the public by default)
  --metrics-port PORT
                   its port, 0 for any free one (env METRICS_PORT, default
                   0); the start line says which
  --no-metrics     neither count nor time requests, no operator's listener
                   (env QR_METRICS=off; docs/operations.md, "Metrics")
  --access-log     log a line per request (env QR_ACCESS_LOG=on)
  --event-loop-route
                   serve GET /metrics/event-loop, the benchmark's event-loop
                   delay window, which any client could reset: off unless
                   asked (env QR_EVENT_LOOP_ROUTE=on)
  --upstream URL   axum-proxy: use this qr_server instead of starting one (env QR_UPSTREAM);
                   axum-rpc: unix:PATH, the socket of a qr_server started with --rpc PATH

Routes: GET /qrcode?text=..., GET /healthz; on the operator's listener
GET /metrics (Prometheus; in cluster mode, every worker's summed) and
GET /healthz. Logs one JSON object per line on stdout (docs/operations.md,
"Logs"): the start line names the operator's listener ("metrics on
http://ADDR/metrics"), the ready one says "node-server (TIER) listening on
http://ADDR"; SIGTERM or SIGINT stops
accepting, finishes in-flight requests, stops child processes, exits 0.`;

function parseOptions(argv, env) {
  const { values } = parseArgs({
    args: argv,
    options: {
      tier: { type: 'string', default: env.QR_TIER },
      host: { type: 'string', default: env.HOST ?? '127.0.0.1' },
      port: { type: 'string', default: env.PORT ?? '42069' },
      workers: { type: 'string', default: env.WORKERS ?? '1' },
      'max-queue': { type: 'string', default: env.QR_MAX_QUEUE ?? '512' },
      'max-connections': { type: 'string', default: env.QR_MAX_CONNECTIONS ?? String(LIMITS.maxConnections) },
      'max-connections-per-client': {
        type: 'string',
        default: env.QR_MAX_CONNECTIONS_PER_CLIENT ?? String(LIMITS.maxConnectionsPerClient),
      },
      upstream: { type: 'string', default: env.QR_UPSTREAM },
      'metrics-host': { type: 'string', default: env.METRICS_HOST ?? '127.0.0.1' },
      'metrics-port': { type: 'string', default: env.METRICS_PORT ?? '0' },
      'no-metrics': { type: 'boolean', default: env.QR_METRICS === 'off' },
      'access-log': { type: 'boolean', default: env.QR_ACCESS_LOG === 'on' },
      'event-loop-route': { type: 'boolean', default: env.QR_EVENT_LOOP_ROUTE === 'on' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return null;
  const port = Number(values.port);
  const metricsPort = Number(values['metrics-port']);
  const workers = Number(values.workers);
  const maxQueue = Number(values['max-queue']);
  const maxConnections = Number(values['max-connections']);
  const maxConnectionsPerClient = Number(values['max-connections-per-client']);
  if (!values.tier) throw new Error('--tier is required');
  if (!tierNames.includes(values.tier))
    throw new Error(`unknown tier "${values.tier}" (one of: ${tierNames.join(', ')})`);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port "${values.port}"`);
  if (!Number.isInteger(metricsPort) || metricsPort < 0 || metricsPort > 65535) {
    throw new Error(`invalid metrics-port "${values['metrics-port']}"`);
  }
  // Node listens on every address for an empty host: never the operator's default by mistake.
  if (!values['metrics-host']) throw new Error('--metrics-host needs an address');
  if (!Number.isInteger(workers) || workers < 1) throw new Error(`invalid workers "${values.workers}"`);
  if (!Number.isInteger(maxQueue) || maxQueue < 0) throw new Error(`invalid max-queue "${values['max-queue']}"`);
  if (!Number.isInteger(maxConnections) || maxConnections < 1) {
    throw new Error(`invalid max-connections "${values['max-connections']}"`);
  }
  if (!Number.isInteger(maxConnectionsPerClient) || maxConnectionsPerClient < 0) {
    throw new Error(`invalid max-connections-per-client "${values['max-connections-per-client']}"`);
  }
  return {
    tier: values.tier,
    host: values.host,
    port,
    workers,
    maxQueue,
    maxConnections,
    maxConnectionsPerClient,
    upstream: values.upstream,
    metricsHost: values['metrics-host'],
    metricsPort,
    metrics: !values['no-metrics'],
    accessLog: values['access-log'],
    eventLoopRoute: values['event-loop-route'],
  };
}

/** Exits with `code` once the log's lines are written, or LOG_FLUSH_MS has passed. */
function exitAfterLog(log, code) {
  log.flush(LOG_FLUSH_MS).finally(() => process.exit(code));
}

let failing = false;
/** The reason it stops: a log line, and one plain line on stderr for whoever started it; nothing else runs. */
function fatal(log, err) {
  if (failing) return;
  failing = true;
  log.error({ event: 'fatal', error: err.message }, `node-server: ${err.message}`);
  console.error(`node-server: ${err.message}`);
  exitAfterLog(log, 1);
}

/** What the tiers' supervision says: which tier `auto` chose, children replaced. */
const tierLog = (log) => ({
  info: (line) => log.info({ event: 'tier' }, line),
  warn: (line) => log.warn({ event: 'restart' }, line),
});

/** One process serving HTTP: a cluster worker or the whole server. */
async function serve(options, log) {
  // The server tells `arrivals` of each connection it accepts; the tiers on
  // the event loop ask it, and yield a turn while connections are arriving.
  const metrics = createMetrics({ record: options.metrics, droppedLines: log.dropped });
  const arrivals = createArrivals();
  const tier = await loadTier(options.tier).createTier({
    ...options,
    deferTurn: arrivals.sinceAsked,
    onRestart: (kind) => metrics.restarted(kind),
    log: tierLog(log),
  });
  const name = tier.name ?? options.tier;
  const handle = createApp({
    tier: name,
    generateQrCode: tier.run,
    metrics,
    log,
    eventLoopRoute: options.eventLoopRoute,
  });
  const { server, shutdown, openConnections } = createHttpServer(handle, {
    maxConnections: options.maxConnections,
    maxConnectionsPerClient: options.maxConnectionsPerClient,
    onRefused: (reason) => {
      metrics.refused(reason);
      log.refused(reason);
    },
    // A client pipelining past HTTP_LIMITS.maxPipelined: closed after its answer in progress.
    onPipelineOverflow: () => log.refused('pipeline_overflow'),
    arrivals,
  });
  metrics.watch({ name, tier, openConnections });
  // One process: its own listener, before the public port, as in a cluster.
  const health = () => ({ tier: name, pid: process.pid });
  const collect = () => metrics.registry.metrics();
  const operator = cluster.isPrimary ? await listenOperator(options, log, metrics, collect, health) : null;
  // Clustered, the primary serves the metrics: a worker gives it its registry when asked.
  if (cluster.isWorker && options.metrics) clusterMetricsClient(metrics.registry);
  // Before the ready line: a supervisor may send SIGTERM the moment it reads it.
  onShutdownSignal(log, async () => {
    // Stop accepting, answer what is in flight, and close every keep-alive
    // connection once it is idle instead of waiting out its timeout.
    await Promise.all([shutdown(), operator?.close()]);
    await tier.close();
  });
  server.listen(options.port, options.host);
  await new Promise((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  if (cluster.isPrimary) {
    const { address, port } = server.address();
    const running = tier.name && tier.name !== options.tier ? `${options.tier}: ${tier.name}` : options.tier;
    sayCap(log, options, operator?.url);
    const url = `http://${address}:${port}`;
    log.info({ event: 'ready', url, tier: name }, `node-server (${running}) listening on ${url}`);
  }
}

/** Cluster primary: forks the workers, shares what the tier shares. */
async function serveCluster(options, log) {
  const adapter = loadTier(options.tier);
  // The primary's own: worker and upstream restarts, its process's figures.
  const metrics = createMetrics({ record: options.metrics, droppedLines: log.dropped });
  // The operator's listener is the primary's: its answers carry the tier's label, as the workers' do.
  metrics.label(options.tier);
  const collect = options.metrics ? serveClusterMetrics(metrics.registry) : null;
  const health = () => ({ tier: options.tier, pid: process.pid });
  const operator = await listenOperator(options, log, metrics, collect, health);
  const onRestart = (kind) => metrics.restarted(kind);
  const shared = options.upstream
    ? undefined
    : await adapter.startShared?.({ ...options, onRestart, log: tierLog(log) });
  // Bun's workers bind sockets of their own (no handle passing yet: oven-sh/bun#38109), so port 0 would
  // give each worker a port of its own: the primary picks one for all of them.
  const port = options.port === 0 && process.versions.bun ? await freePort(options.host) : options.port;
  const workerOptions = JSON.stringify({ ...options, port, upstream: shared?.upstream ?? options.upstream });
  // A worker that keeps dying young is forked again ever more slowly.
  const backoff = createBackoff();
  let listening = 0;
  let stopping = false;
  const fork = () => Object.assign(cluster.fork({ QR_WORKER_OPTIONS: workerOptions }), { forkedAt: Date.now() });
  const ports = new Set();
  cluster.on('listening', (_worker, address) => {
    ports.add(address.port);
    if (ports.size > 1) return fatal(log, new Error(`workers listen on different ports: ${[...ports].join(', ')}`));
    if (++listening === options.workers) {
      sayCap(log, options, operator?.url);
      const url = `http://${options.host}:${address.port}`;
      const message = `node-server (${options.tier}, ${options.workers} workers) listening on ${url}`;
      log.info({ event: 'ready', url, tier: options.tier, workers: options.workers }, message);
    }
  });
  cluster.on('exit', (worker, code, signal) => {
    if (stopping || failing) return;
    if (listening < options.workers) return fatal(log, new Error(`worker failed to start (exit ${signal ?? code})`));
    const delay = backoff.next(Date.now() - worker.forkedAt);
    const fields = {
      event: 'restart',
      kind: 'worker',
      exited: worker.process.pid,
      status: signal ?? code,
      delay_ms: delay,
    };
    log.warn(fields, `worker ${worker.process.pid} exited with ${signal ?? code}; forking a new one in ${delay} ms`);
    metrics.restarted('worker');
    setTimeout(() => stopping || fork(), delay);
  });
  onShutdownSignal(log, async () => {
    stopping = true;
    const exits = Object.values(cluster.workers).map(
      (worker) => new Promise((resolve) => worker.once('exit', resolve)),
    );
    for (const worker of Object.values(cluster.workers)) worker.process.kill('SIGTERM');
    await Promise.all([...exits, operator?.close()]);
    await shared?.close();
  });
  for (let i = 0; i < options.workers; i++) fork();
}

/** A port nothing listens on now, for `host`. */
async function freePort(host) {
  const probe = require('node:net').createServer();
  await new Promise((resolve, reject) => probe.once('error', reject).listen(0, host, resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * The operator's listener (GET /metrics, GET /healthz) on --metrics-host and
 * --metrics-port, unless --no-metrics: `collect` gives the exposition.
 */
async function listenOperator(options, log, metrics, collect, health) {
  if (!options.metrics) return null;
  const { metricsHost: host, metricsPort: port } = options;
  return listenMetrics({
    collect,
    health,
    contentType: metrics.registry.contentType,
    host,
    port,
    onError: (err) => log.error({ event: 'metrics', error: err.message }, 'metrics unavailable'),
    // Its own answers counted too, as qr_server's layer counts its operator listener's.
    observe: (req, res) => metrics.observe(req, res),
  }).catch((err) => {
    throw new Error(`cannot listen on ${host}:${port} for metrics: ${err.message}`);
  });
}

/** Which connection cap is in force, and where the metrics are, once the server has started. */
function sayCap(log, { maxConnections, openFiles }, metricsUrl) {
  const fields = {
    event: 'start',
    pid: process.pid,
    max_connections: maxConnections,
    open_files: openFiles,
    metrics_url: metricsUrl,
  };
  const where = metricsUrl ? `; metrics on ${metricsUrl}` : '';
  log.info(
    fields,
    `node-server: at most ${maxConnections} connections per process (open-file limit ${openFiles})${where}`,
  );
}

function onShutdownSignal(log, shutdown) {
  let started = false;
  const handler = (signal) => {
    if (started) return;
    started = true;
    // Clustered, the primary says it for the whole server.
    if (cluster.isPrimary) log.info({ event: 'stop', signal }, 'node-server: stopping');
    setTimeout(() => {
      log.error({ event: 'stop' }, 'node-server: shutdown timed out');
      exitAfterLog(log, 1);
    }, SHUTDOWN_TIMEOUT_MS).unref();
    shutdown().then(
      () => {
        if (cluster.isPrimary) log.info({ event: 'stopped' }, 'node-server: stopped');
        exitAfterLog(log, 0);
      },
      (err) => fatal(log, err),
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
}

function main() {
  let options;
  if (cluster.isWorker) {
    options = JSON.parse(process.env.QR_WORKER_OPTIONS);
  } else {
    try {
      options = parseOptions(process.argv.slice(2), process.env);
    } catch (err) {
      console.error(`node-server: ${err.message}\n\n${USAGE}`);
      process.exit(2);
    }
    if (!options) return console.log(USAGE);
    // Workers inherit the limit (Node raised it to the hard one) and this cap.
    options.openFiles = openFileLimit();
    options.maxConnections = connectionCap(options.maxConnections, options.openFiles);
  }
  const log = createLog({ access: options.accessLog });
  const run = cluster.isPrimary && options.workers > 1 ? serveCluster : serve;
  run(options, log).catch((err) => fatal(log, err));
}

main();
