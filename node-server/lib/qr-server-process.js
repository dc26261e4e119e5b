'use strict';

// qr_server as a child of node-server (axum-proxy) or of deploy/.
const { spawnListening, superviseServer } = require('tier-adapters/server');
const { binaryPath } = require('./binaries');

// Its stdin is node-server's lifeline (tier-adapters' spawnListening): if
// node-server dies, even by SIGKILL, qr_server drains and exits.
// With `rpc`, it also serves the core on that Unix socket (tier axum-rpc).
// Its operator's listener on loopback and a port of its own, whatever
// METRICS_HOST and METRICS_PORT say: those are node-server's.
const qrServerArgs = (host, port, rpc) => [
  '--host',
  host,
  '--port',
  String(port),
  ...(rpc ? ['--rpc', rpc] : []),
  '--metrics-host',
  '127.0.0.1',
  '--metrics-port',
  '0',
  '--until-stdin-closes',
];

function startQrServer({ host = '127.0.0.1', port = 0 } = {}) {
  return spawnListening(binaryPath('qr_server'), qrServerArgs(host, port), { name: 'qr_server' });
}

/**
 * Starts qr_server and restarts it, on the same port (and socket), whenever
 * it exits: after 100 ms, doubling while it keeps dying young, up to 10 s.
 * @param {{ host?: string, rpc?: string, log?: (line: string) => void, onRestart?: () => void }} [options]
 * @returns {Promise<{ url: string, close: () => Promise<void> }>}
 */
function superviseQrServer({ host = '127.0.0.1', rpc, log, onRestart } = {}) {
  const args = (port) => qrServerArgs(host, port, rpc);
  return superviseServer({ command: binaryPath('qr_server'), args, name: 'qr_server', log, onRestart });
}

module.exports = { startQrServer, superviseQrServer };
