'use strict';

// A server child kept running on one port: started on a free loopback port,
// restarted there whenever it exits. The URL never changes, so connection
// pools and cluster workers that were given it need no news of a restart.
const { spawnListening, stopChild } = require('./children');
const { createBackoff } = require('./backoff');

/**
 * @param {{ command: string, args: (port: number) => string[], name?: string, readyLine?: RegExp,
 *   log?: (line: string) => void, onRestart?: () => void }} options
 *   args: the command line for a port (0 at first start: the server picks a free one).
 *   onRestart: the server exited and is being restarted.
 * @returns {Promise<{ url: string, close: () => Promise<void> }>}
 */
async function superviseServer({ command, args, name = command, readyLine, log = console.error, onRestart }) {
  const backoff = createBackoff();
  const start = (port) => spawnListening(command, args(port), { name, readyLine });
  let { child, url } = await start(0);
  const port = Number(new URL(url).port);
  let closing = false;
  let timer;

  const watch = (started) => {
    child.once('exit', (code, signal) => {
      if (closing) return;
      const delay = backoff.next(Date.now() - started);
      log(`${name} ${child.pid} exited with ${signal ?? code}; restarting it in ${delay} ms`);
      onRestart?.();
      timer = setTimeout(restart, delay);
    });
  };
  const restart = async () => {
    const started = Date.now();
    try {
      ({ child } = await start(port));
      if (closing) return void (await stopChild(child));
      watch(started);
    } catch (err) {
      if (closing) return;
      const delay = backoff.next(0);
      log(`${name} restart failed (${err.message}); trying again in ${delay} ms`);
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

module.exports = { superviseServer };
