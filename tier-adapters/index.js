'use strict';

// Turn any implementation of a hot function into a tier with the right
// concurrency policy (loadCAbi and loadWasmBindgen make such a function of
// a library behind a C ABI or a wasm-bindgen module).
// Every factory returns `{ run(input, { signal }), close() }`: bounded (past
// `maxQueue`, a 503 `server busy` with Retry-After), and a call whose signal
// aborts (its client hung up) leaves the queue without running.
// What serves the tiers is `tier-adapters/server`; logs and metrics are
// `tier-adapters/log` and `tier-adapters/prometheus`.
const { createEventLoopTier } = require('./event-loop-tier');
const { createThreadPoolTier } = require('./thread-pool-tier');
const { createStdioPoolTier } = require('./stdio-pool-tier');
const { createSpawnTier, childFailed } = require('./spawn-tier');
const { createHttpUpstreamTier } = require('./http-upstream-tier');
const { createRpcTier } = require('./rpc-tier');
const { withTrapRecovery, loadWasmBindgen } = require('./wasm-trap');
const { createArrivals } = require('./arrivals');
const { loadCAbi, cAbiUnavailable } = require('./c-abi');
const { TierError } = require('./errors');

module.exports = {
  createEventLoopTier,
  createThreadPoolTier,
  createStdioPoolTier,
  createSpawnTier,
  childFailed,
  createHttpUpstreamTier,
  createRpcTier,
  withTrapRecovery,
  loadWasmBindgen,
  loadCAbi,
  cAbiUnavailable,
  createArrivals,
  TierError,
};
