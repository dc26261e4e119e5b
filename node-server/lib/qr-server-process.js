'use strict';

// qr_server as a child of node-server (axum-proxy) or of deploy/.
const { spawnListening, superviseServer } = require('tier-adapters');
const { binaryPath } = require('./binaries');

// Its stdin is node-server's lifeline (tier-adapters' spawnListening): if
// node-server dies, even by SIGKILL, qr_server drains and exits.
const qrServerArgs = (host, port) => ['--host', host, '--port', String(port), '--until-stdin-closes'];

function startQrServer({ host = '127.0.0.1', port = 0 } = {}) {
  return spawnListening(binaryPath('qr_server'), qrServerArgs(host, port), { name: 'qr_server' });
}

/**
 * Starts qr_server and restarts it, on the same port, whenever it exits:
 * after 100 ms, doubling while it keeps dying young, up to 10 s.
 * @returns {Promise<{ url: string, close: () => Promise<void> }>}
 */
function superviseQrServer({ host = '127.0.0.1', log } = {}) {
  return superviseServer({ command: binaryPath('qr_server'), args: (port) => qrServerArgs(host, port), name: 'qr_server', log });
}

module.exports = { startQrServer, superviseQrServer };
