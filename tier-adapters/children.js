'use strict';

// Child processes that must not outlive this process, however it exits.
const { spawn } = require('node:child_process');
const readline = require('node:readline');

// The URL ends at white space or a quote: the line may be a JSON log line.
const READY_LINE = /listening on (http:\/\/[^\s"]+)/;
const START_TIMEOUT_MS = 10_000;

const owned = new Set();
process.on('exit', () => {
  for (const child of owned) child.kill('SIGKILL');
});

/**
 * `spawn`, plus a SIGKILL for the child if this process exits first. The
 * child gets a process group (and session) of its own: a stop signal aimed at
 * this process's group (Ctrl-C, `kill -TERM -PGID`, process managers) reaches
 * this process, which stops its children once it has finished with them,
 * and not the children behind its back. `detached: false` keeps it in this
 * process's group.
 * @param {string} command
 * @param {readonly string[]} args
 * @param {import('node:child_process').SpawnOptions} [options]
 */
function spawnOwned(command, args, { detached = true, ...options } = {}) {
  const child = spawn(command, args, { ...options, detached });
  owned.add(child);
  child.once('exit', () => owned.delete(child));
  return child;
}

/**
 * Starts a server that prints its URL on stdout (by default in a line like
 * `... listening on http://ADDR`) and resolves with the child and that URL.
 * stderr is inherited, unless `onOutput` is given: then it, and every stdout
 * line, goes there (for a caller that shows a failed start's output). stdin
 * is a pipe this process never writes to: it closes when this process dies,
 * however it dies, so a child that stops when its stdin closes (a server with an option
 * like --until-stdin-closes) cannot outlive it.
 * @param {string} command
 * @param {readonly string[]} args
 * @param {{ name?: string, env?: NodeJS.ProcessEnv, readyLine?: RegExp, timeoutMs?: number,
 *   onOutput?: (text: string) => void, detached?: boolean }} [options]
 * @returns {Promise<{ child: import('node:child_process').ChildProcess, url: string }>}
 */
function spawnListening(
  command,
  args,
  { name = command, env, readyLine = READY_LINE, timeoutMs = START_TIMEOUT_MS, onOutput, detached } = {},
) {
  /** @type {import('node:child_process').StdioOptions} */
  const stdio = ['pipe', 'pipe', onOutput ? 'pipe' : 'inherit'];
  const child = spawnOwned(command, args, { stdio, env: env && { ...process.env, ...env }, detached });
  child.stderr?.on('data', (chunk) => onOutput(chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${name} did not start in ${timeoutMs} ms`)), timeoutMs);
    const fail = (err) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(err);
    };
    const exitedEarly = (code, signal) => fail(new Error(`${name} exited with ${signal ?? code} before listening`));
    child.once('error', fail);
    child.once('exit', exitedEarly);
    let ready = false;
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      onOutput?.(`${line}\n`);
      const match = ready ? null : readyLine.exec(line);
      if (!match) return;
      ready = true;
      clearTimeout(timer);
      child.off('exit', exitedEarly);
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

module.exports = { spawnOwned, spawnListening, stopChild, READY_LINE };
