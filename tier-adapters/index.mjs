// The ES module entry: the CommonJS one's exports by name (one implementation,
// so `instanceof TierError` holds across both). test/tooling/exports.test.js holds
// the names to index.js's and index.d.ts's.
import adapters from './index.js';

export const {
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
} = adapters;
