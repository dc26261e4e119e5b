'use strict';

// Cluster mode: one exposition for the whole cluster. The primary collects
// every worker's registry and its own (say, worker restarts) and sums them
// with prom-client's aggregation (gauges of the event loop averaged, as
// prom-client defines); it answers its own metrics listener with it, and
// any worker that asks.
const cluster = require('node:cluster');
const { AggregatorRegistry } = require('prom-client');

const TYPE = 'tier-adapters-metrics';
// A worker that does not answer in this time fails the scrape (503): a sum
// without it would read as counters going backwards.
const COLLECT_TIMEOUT_MS = 2_000;
// A collection answers every scrape that arrives while it runs and for this
// long after: a client looping on /metrics costs the workers and the primary
// at most one collection per this period, not one per request.
const SHARED_FOR_MS = 250;

/**
 * `collect` shared: a call while one runs, or within SHARED_FOR_MS of its
 * end, gets its answer; a failure is not kept.
 * @param {() => Promise<string>} collect
 * @returns {() => Promise<string>}
 */
function shareCollections(collect) {
  let shared = null; // { text: Promise<string>, at } of the latest collection
  return () => {
    if (!shared || performance.now() - shared.at > SHARED_FOR_MS) {
      const text = collect();
      shared = { text, at: Infinity };
      const latest = () => shared?.text === text;
      text.then(
        () => {
          if (latest()) shared.at = performance.now();
        },
        () => {
          if (latest()) shared = null;
        },
      );
    }
    return shared.text;
  };
}

/**
 * In the primary: answers the workers' requests for the cluster's metrics,
 * and returns what collects them (shared, as shareCollections).
 * @returns {() => Promise<string>}
 */
function serveClusterMetrics(registry) {
  const collections = new Map(); // id -> { left: Set<worker id>, metrics: [], done }
  let nextId = 0;
  const collectShared = shareCollections(collect);
  cluster.on('message', (worker, message) => {
    if (message?.[TYPE] === 'all') {
      collectShared().then(
        (text) => worker.isConnected() && worker.send({ [TYPE]: 'text', id: message.id, text }),
        (err) => worker.isConnected() && worker.send({ [TYPE]: 'text', id: message.id, error: err.message }),
      );
    } else if (message?.[TYPE] === 'mine') {
      const collection = collections.get(message.id);
      if (!collection) return;
      collection.metrics.push(message.metrics);
      answered(collection, worker.id);
    }
  });
  // A worker that exits has nothing more to give.
  cluster.on('exit', (worker) => {
    for (const collection of collections.values()) answered(collection, worker.id);
  });
  const answered = (collection, workerId) => {
    if (collection.left.delete(workerId) && collection.left.size === 0) collection.done();
  };

  async function collect() {
    const id = nextId++;
    const workers = Object.values(cluster.workers).filter((w) => w.isConnected());
    const metrics = [await registry.getMetricsAsJSON()];
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        collections.delete(id);
        reject(new Error(`${collection.left.size} worker(s) did not answer within ${COLLECT_TIMEOUT_MS} ms`));
      }, COLLECT_TIMEOUT_MS);
      const collection = {
        left: new Set(workers.map((w) => w.id)),
        metrics,
        done() {
          clearTimeout(timer);
          collections.delete(id);
          resolve();
        },
      };
      if (collection.left.size === 0) return collection.done();
      collections.set(id, collection);
      for (const worker of workers) worker.send({ [TYPE]: 'collect', id });
    });
    return AggregatorRegistry.aggregate(metrics).metrics();
  }
  return collectShared;
}

/**
 * In a worker: gives its registry to the primary when asked, and returns the
 * function that asks the primary for the whole cluster's exposition.
 * @returns {() => Promise<string>}
 */
function clusterMetricsClient(registry) {
  const asked = new Map(); // id -> settle
  let nextId = 0;
  process.on('message', (/** @type {any} */ message) => {
    if (message?.[TYPE] === 'collect') {
      registry.getMetricsAsJSON().then((metrics) => process.send({ [TYPE]: 'mine', id: message.id, metrics }));
    } else if (message?.[TYPE] === 'text') {
      asked.get(message.id)?.(message);
    }
  });
  // Scrapes of this worker that arrive while one is asked share its answer.
  let asking = null;
  return () => {
    asking ??= ask().finally(() => (asking = null));
    return asking;
  };
  function ask() {
    return new Promise((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => settle({ error: 'the primary did not answer' }), 2 * COLLECT_TIMEOUT_MS);
      const settle = (message) => {
        clearTimeout(timer);
        asked.delete(id);
        if (message.error) reject(new Error(message.error));
        else resolve(message.text);
      };
      asked.set(id, settle);
      process.send({ [TYPE]: 'all', id });
    });
  }
}

module.exports = { shareCollections, serveClusterMetrics, clusterMetricsClient };
