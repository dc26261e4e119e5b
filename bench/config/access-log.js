'use strict';

// What the access log costs (docs/operations.md, "Logs"): each server with a
// JSON line per request (--access-log) and without, under the same load in
// the same rounds; the report's "Pairs" gives with over without:
//   node bench/run.js --config bench/config/access-log.js --rounds 5 --out bench/results/access-log
// The lines go to the benchmark's pipe, which reads them, as a log shipper would.
const qr = require('./qr');
const { variant } = require('../lib/variant');

module.exports = {
  ...qr,
  title: 'Access log on and off',
  baseline: 'napi',
  crossLine: undefined,
  frameworkCost: undefined,
  tiers: [
    variant(qr, 'napi', 'napi'),
    variant(qr, 'napi', 'napi-access-log', '--access-log'),
    variant(qr, 'axum', 'axum'),
    variant(qr, 'axum', 'axum-access-log', '--access-log'),
  ],
  pairs: [
    { tier: 'napi-access-log', against: 'napi', what: 'node-server, a pino line per request' },
    { tier: 'axum-access-log', against: 'axum', what: 'qr_server, a tracing line per request' },
  ],
  soakTiers: [],
};
