'use strict';

// Every tier the shared suite runs against, from the one list (node-server/tiers).
const { TIERS: ALL } = require('../../node-server/tiers');

const TIERS = ALL.map((t) => t.name);
// Tiers that run qr_lib: they must return byte-identical PNGs.
const RUST_TIERS = ALL.filter((t) => t.rust).map((t) => t.name);

module.exports = { TIERS, RUST_TIERS };
