'use strict';

// Child processes that must not outlive node-server, however it exits.
const { spawn } = require('node:child_process');
const readline = require('node:readline');

const READY_LINE = /listening on (http:\/\/\S+)/;
const START_TIMEOUT_MS = 10_000;

const owned = new Set();
process.on('exit', () => {
  for (const child of owned) child.kill('SIGKILL');
});

/** `spawn`, plus a SIGKILL for the child if this process exits first. */
function spawnOwned(command, args, options) {
  const child = spawn(command, args, options);
  owned.add(child);
  child.once('exit', () => owned.delete(child));
  return child;
}

/**
 * Starts a server that prints `... listening on http://ADDR` (qr_server,
 * node-server) and resolves with the child and that URL.
 */
function spawnListening(command, args, { name, env } = {}) {
  const child = spawnOwned(command, args, { stdio: ['ignore', 'pipe', 'inherit'], env: env && { ...process.env, ...env } });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${name} did not start in time`)), START_TIMEOUT_MS);
    const fail = (err) => {
      clearTimeout(timer);
      child.kill();
      reject(err);
    };
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`${name} exited with ${code} before listening`)));
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      const match = READY_LINE.exec(line);
      if (!match) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve({ child, url: match[1] });
    });
  });
}

/** SIGTERM (or `signal`), then wait for the exit: the servers shut down gracefully. */
function stopChild(child, signal = 'SIGTERM') {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', resolve);
    child.kill(signal);
  });
}

module.exports = { spawnOwned, spawnListening, stopChild };
