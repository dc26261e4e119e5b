'use strict';

// What recording metrics costs (docs/operations.md, "Metrics"): each server
// with its Prometheus metrics on (the default) and off (--no-metrics), under
// the same load in the same rounds; the report's "Pairs" gives on over off:
//   node bench/run.js --config bench/config/metrics.js --rounds 9 --out bench/results/metrics
// `napi` is node-server's cheapest tier per request, where the same recording
// weighs the most.
const qr = require('./qr');
const { variant } = require('../lib/variant');

module.exports = {
  ...qr,
  title: 'Metrics on and off',
  baseline: 'napi-no-metrics',
  crossLine: undefined,
  frameworkCost: undefined,
  tiers: [
    variant(qr, 'napi', 'napi'),
    variant(qr, 'napi', 'napi-no-metrics', '--no-metrics'),
    variant(qr, 'axum', 'axum'),
    variant(qr, 'axum', 'axum-no-metrics', '--no-metrics'),
  ],
  pairs: [
    { tier: 'napi', against: 'napi-no-metrics', what: 'node-server, prom-client recording each request' },
    { tier: 'axum', against: 'axum-no-metrics', what: 'qr_server, prometheus-client recording each request' },
  ],
  soakTiers: [],
};
