'use strict';

// Every tier the shared suite runs against, from the one list (node-server/tiers),
// but those the servers' runtime cannot serve (ffi before Node 26; on Bun or
// Deno, what test/helpers/runtimes.js lists): SKIPPED says why.
const { TIERS: ALL } = require('../../node-server/tiers');
const { unsupportedReason } = require('./runtimes');

const runs = (t) => !unsupportedReason(t);
const TIERS = ALL.filter(runs).map((t) => t.name);
// Tiers that run qr_lib: they must return byte-identical PNGs.
const RUST_TIERS = ALL.filter((t) => t.rust && runs(t)).map((t) => t.name);
// One tier for each thing a request can wait on in node-server (the event
// loop, worker threads, libuv's pool, children, a socket upstream): where an
// attack meets node-server's HTTP layer, not a tier's own code, these stand
// for the rest.
const BACKEND_TIERS = ['js', 'js-workers', 'napi-async', 'cli-pool', 'axum-rpc'].filter((t) => TIERS.includes(t));
/** [tier, reason] for each tier left out here. */
const SKIPPED = ALL.filter((t) => !runs(t)).map((t) => [t.name, unsupportedReason(t)]);

module.exports = { TIERS, RUST_TIERS, BACKEND_TIERS, SKIPPED };
