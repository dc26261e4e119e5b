'use strict';

// Starts `qr_server --port 0` and resolves with its URL once it says it listens.
const { spawnOwned } = require('./children');
const readline = require('node:readline');
const { binaryPath } = require('./binaries');

const READY_LINE = /listening on (http:\/\/\S+)/;
const START_TIMEOUT_MS = 10_000;

function startQrServer({ host = '127.0.0.1', port = 0 } = {}) {
  const child = spawnOwned(binaryPath('qr_server'), ['--host', host, '--port', String(port)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error('qr_server did not start in time')), START_TIMEOUT_MS);
    const fail = (err) => {
      clearTimeout(timer);
      child.kill();
      reject(err);
    };
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`qr_server exited with ${code} before listening`)));
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      const match = READY_LINE.exec(line);
      if (!match) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve({ child, url: match[1] });
    });
  });
}

/** SIGTERM, then wait for the exit (qr_server shuts down gracefully). */
function stopChild(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}

module.exports = { startQrServer, stopChild };
