// The ES module entry of tier-adapters/server: server.js's exports by name.
// test/tooling/exports.test.js holds the names to server.js's and server.d.ts's.
import server from './server.js';

export const {
  createHttpServer,
  isPipelined,
  HTTP_LIMITS,
  refuseLongUris,
  isInvalidTarget,
  httpResponseFor,
  openFileLimit,
  connectionCap,
  spawnOwned,
  spawnListening,
  stopChild,
  superviseServer,
  createBackoff,
} = server;
