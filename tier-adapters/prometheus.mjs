// The ES module entry of tier-adapters/prometheus: the CommonJS one's exports by name.
import prometheus from './prometheus.js';

export const { createRequestMetrics, serveClusterMetrics, clusterMetricsClient, listenMetrics } = prometheus;
