'use strict';

// tier-adapters/prometheus: per-request series recorded cheaply and read at
// scrape time, one answer for a whole cluster, and the listener that serves
// it apart from the public port. Needs prom-client.
const { createRequestMetrics } = require('./request-metrics');
const { serveClusterMetrics, clusterMetricsClient } = require('./cluster-metrics');
const { listenMetrics } = require('./metrics-listener');

module.exports = { createRequestMetrics, serveClusterMetrics, clusterMetricsClient, listenMetrics };
