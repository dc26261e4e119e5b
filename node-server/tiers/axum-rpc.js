'use strict';

// Tier 4, without HTTP: express calls qr_server over a Unix socket, many calls
// in flight per connection, answered by id (docs/rpc-protocol.md). Either
// node-server owns the server (started with `--rpc` on a socket in a private
// temporary directory, restarted there if it dies) or `--upstream unix:PATH`
// names one run elsewhere. Errors come back as qr_cli --serve sends them.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createRpcTier } = require('tier-adapters');
const { superviseQrServer } = require('../lib/qr-server-process');
const { coreError } = require('../lib/errors');

async function createTier({ upstream, maxQueue, onRestart, log } = {}) {
  const owned = upstream ? undefined : await startShared({ onRestart, log });
  const rpc = createRpcTier({
    path: socketPath(upstream ?? owned.upstream),
    name: 'qr rpc',
    // Below node-server's 10 s idle timeout, so the client gets the 504.
    deadlineMs: 5_000,
    maxQueue,
    decodeError: (status, payload) => coreError(status, payload.toString('utf8')),
  });
  return {
    run: rpc.run,
    get running() {
      return rpc.running;
    },
    get queued() {
      return rpc.queued;
    },
    async close() {
      await rpc.close();
      await owned?.close();
    },
  };
}

/** For cluster mode: the primary supervises one qr_server all workers share. */
async function startShared({ onRestart, log } = {}) {
  // Private to this user: nobody else can connect to the socket or swap it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qr-rpc-'));
  const rpc = path.join(dir, 'qr_server.sock');
  try {
    const server = await superviseQrServer({ rpc, onRestart: () => onRestart?.('upstream'), log: log?.warn });
    return {
      upstream: `unix:${rpc}`,
      async close() {
        await server.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

function socketPath(upstream) {
  if (!upstream.startsWith('unix:'))
    throw new Error(`axum-rpc: --upstream must be unix:PATH, not ${JSON.stringify(upstream)}`);
  return upstream.slice('unix:'.length);
}

module.exports = { createTier, startShared };
