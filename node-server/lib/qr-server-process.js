'use strict';

// qr_server as a child of node-server: started on a free loopback port and
// kept running there. The URL never changes, so connection pools and cluster
// workers that were given it need no news of a restart.
const { spawnListening, stopChild } = require('./children');
const { binaryPath } = require('./binaries');
const { createBackoff } = require('./backoff');

function startQrServer({ host = '127.0.0.1', port = 0 } = {}) {
  return spawnListening(binaryPath('qr_server'), ['--host', host, '--port', String(port)], { name: 'qr_server' });
}

/**
 * Starts qr_server and restarts it, on the same port, whenever it exits:
 * after 100 ms, doubling while it keeps dying young, up to 10 s.
 * @returns {Promise<{ url: string, close: () => Promise<void> }>}
 */
async function superviseQrServer({ host = '127.0.0.1', log = console.error } = {}) {
  const backoff = createBackoff();
  let { child, url } = await startQrServer({ host });
  const { port } = new URL(url);
  let closing = false;
  let timer;

  const watch = (started) => {
    child.once('exit', (code, signal) => {
      if (closing) return;
      const delay = backoff.next(Date.now() - started);
      log(`qr_server ${child.pid} exited with ${signal ?? code}; restarting it in ${delay} ms`);
      timer = setTimeout(restart, delay);
    });
  };
  const restart = async () => {
    const started = Date.now();
    try {
      ({ child } = await startQrServer({ host, port }));
      if (closing) return void (await stopChild(child));
      watch(started);
    } catch (err) {
      if (closing) return;
      const delay = backoff.next(0);
      log(`qr_server restart failed (${err.message}); trying again in ${delay} ms`);
      timer = setTimeout(restart, delay);
    }
  };
  watch(Date.now());

  return {
    url,
    async close() {
      closing = true;
      clearTimeout(timer);
      await stopChild(child);
    },
  };
}

module.exports = { startQrServer, superviseQrServer, stopChild };
