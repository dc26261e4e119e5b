'use strict';

// Every tier the shared suite runs against, from the one list (node-server/tiers),
// but those whose `needs` this runtime lacks (node:ffi before Node 26): SKIPPED says why.
const { isBuiltin } = require('node:module');
const { TIERS: ALL } = require('../../node-server/tiers');

const runs = (t) => !t.needs || isBuiltin(t.needs);
const TIERS = ALL.filter(runs).map((t) => t.name);
// Tiers that run qr_lib: they must return byte-identical PNGs.
const RUST_TIERS = ALL.filter((t) => t.rust && runs(t)).map((t) => t.name);
/** [tier, reason] for each tier left out here. */
const SKIPPED = ALL.filter((t) => !runs(t)).map((t) => [t.name, `Node ${process.version} has no ${t.needs}`]);

module.exports = { TIERS, RUST_TIERS, SKIPPED };
