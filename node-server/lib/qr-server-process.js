'use strict';

// Starts `qr_server --port 0` and resolves with its URL once it says it listens.
const { spawnListening, stopChild } = require('./children');
const { binaryPath } = require('./binaries');

function startQrServer({ host = '127.0.0.1', port = 0 } = {}) {
  return spawnListening(binaryPath('qr_server'), ['--host', host, '--port', String(port)], { name: 'qr_server' });
}

module.exports = { startQrServer, stopChild };
