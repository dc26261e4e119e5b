'use strict';

// Every tier the shared suite runs against. A new tier joins by name here.
const TIERS = ['js', 'cli', 'cli-pool', 'wasm', 'wasm-raw', 'napi', 'napi-async', 'axum-proxy', 'axum'];
// Tiers that run qr_lib: they must return byte-identical PNGs.
const RUST_TIERS = TIERS.filter((t) => t !== 'js');

module.exports = { TIERS, RUST_TIERS };
