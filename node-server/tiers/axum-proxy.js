'use strict';

// Tier 4: express forwards the work to qr_server over keep-alive connections.
// Either node-server owns the upstream (starts it on a free loopback port and
// restarts it there if it dies) or `--upstream URL` names one run elsewhere.
const { createHttpUpstreamTier } = require('tier-adapters');
const { superviseQrServer } = require('../lib/qr-server-process');

async function createTier({ upstream, maxQueue, onRestart, log } = {}) {
  const owned = upstream ? undefined : await startShared({ onRestart, log });
  const forward = createHttpUpstreamTier({
    url: upstream ?? owned.upstream,
    path: (text) => `/qrcode?text=${encodeURIComponent(text)}`,
    name: 'qr upstream',
    // Below node-server's 10 s idle timeout, so the client gets the 504.
    timeoutMs: 5_000,
    // Below qr_server's 10 s idle timeout.
    keepAliveTimeoutMs: 4_000,
    maxQueue,
  });
  return {
    run: forward.run,
    get running() {
      return forward.running;
    },
    get queued() {
      return forward.queued;
    },
    async close() {
      await forward.close();
      await owned?.close();
    },
  };
}

/** For cluster mode: the primary supervises one qr_server all workers share. */
async function startShared({ onRestart, log } = {}) {
  const shared = await superviseQrServer({ onRestart: () => onRestart?.('upstream'), log: log?.warn });
  return { upstream: shared.url, close: () => shared.close() };
}

module.exports = { createTier, startShared };
