'use strict';

// What a smaller young generation costs (docs/operations.md, "Connection
// storms"): node-server with V8's semi-spaces capped (--max-semi-space-size,
// in MB) and at V8's own size, under the same load in the same rounds; the
// report's "Pairs" gives capped over uncapped:
//   node bench/run.js --config bench/config/young-generation.js --out bench/results/young-generation
const qr = require('./qr');
const { variant, runtimeFlagsVariant } = require('../lib/variant');

const CAPS = [4, 8];
const TIERS = ['napi', 'js'];

module.exports = {
  ...qr,
  title: "V8's young generation capped and not",
  baseline: 'napi',
  crossLine: undefined,
  crossRuntime: undefined,
  frameworkCost: undefined,
  tiers: TIERS.flatMap((tier) => [
    variant(qr, tier, tier),
    ...CAPS.map((mb) => runtimeFlagsVariant(qr, tier, `${tier}-semi-${mb}`, `--max-semi-space-size=${mb}`)),
  ]),
  pairs: TIERS.flatMap((tier) =>
    CAPS.map((mb) => ({ tier: `${tier}-semi-${mb}`, against: tier, what: `${mb} MB semi-spaces` })),
  ),
  soakTiers: [],
};
