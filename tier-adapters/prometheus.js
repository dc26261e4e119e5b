'use strict';

// tier-adapters/prometheus: per-request series recorded cheaply and read at
// scrape time, and one answer for a whole cluster. Needs prom-client.
const { createRequestMetrics } = require('./request-metrics');
const { serveClusterMetrics, clusterMetricsClient } = require('./cluster-metrics');

module.exports = { createRequestMetrics, serveClusterMetrics, clusterMetricsClient };
