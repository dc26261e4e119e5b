'use strict';

// Turn any implementation of a hot function into a tier with the right
// concurrency policy, and serve it with an HTTP server bounded against
// hostile clients (createHttpServer). Every factory returns `{ run(input, { signal }), close() }`:
// bounded (past `maxQueue`, a 503 `server busy` with Retry-After), and a call
// whose signal aborts (its client hung up) leaves the queue without running.
const { createEventLoopTier } = require('./event-loop-tier');
const { createThreadPoolTier } = require('./thread-pool-tier');
const { createStdioPoolTier } = require('./stdio-pool-tier');
const { createSpawnTier, childFailed } = require('./spawn-tier');
const { createHttpUpstreamTier } = require('./http-upstream-tier');
const { createRpcTier } = require('./rpc-tier');
const { superviseServer } = require('./supervise');
const { withTrapRecovery } = require('./wasm-trap');
const { TierError, serverBusy, SERVER_BUSY, RETRY_AFTER_SECONDS } = require('./errors');
const { spawnOwned, spawnListening, stopChild } = require('./children');
const { createBackoff } = require('./backoff');
const { createLoopQueue } = require('./event-loop-queue');
const { createHttpServer, HTTP_LIMITS } = require('./http-server');
const { refuseLongUris, isInvalidTarget, MAX_REQUEST_TARGET_BYTES, URI_TOO_LONG, LINGER_MS } = require('./http-limits');
const { openFileLimit, connectionCap } = require('./fd-limit');

module.exports = {
  createEventLoopTier,
  createThreadPoolTier,
  createStdioPoolTier,
  createSpawnTier,
  childFailed,
  createHttpUpstreamTier,
  createRpcTier,
  superviseServer,
  withTrapRecovery,
  TierError,
  serverBusy,
  SERVER_BUSY,
  RETRY_AFTER_SECONDS,
  spawnOwned,
  spawnListening,
  stopChild,
  createBackoff,
  createLoopQueue,
  createHttpServer,
  HTTP_LIMITS,
  refuseLongUris,
  isInvalidTarget,
  MAX_REQUEST_TARGET_BYTES,
  URI_TOO_LONG,
  LINGER_MS,
  openFileLimit,
  connectionCap,
};
