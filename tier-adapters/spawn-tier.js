'use strict';

// One process per call: the input on its stdin, the result from its stdout.
// The simplest step away from JS, and the most expensive per call: forking
// costs more than most hot functions, so a few run at a time and the rest
// wait in a bounded queue (100 concurrent requests must not mean 100 forks).
const os = require('node:os');
const { spawnOwned } = require('./children');
const { Limiter } = require('./bounded-limiter');
const { TierError } = require('./errors');
const { closedError } = require('./closing');

// What a service manager, a terminal or `kill -PGID` sends to stop a group.
const STOP_SIGNALS = new Set(['SIGTERM', 'SIGINT', 'SIGHUP']);

/** Default for a failed exit: a 500 naming the exit and stderr. */
const childFailed = ({ name, code, signal, stderr }) =>
  new TierError('CHILD_FAILED', `${name} exited with ${signal ?? code}: ${stderr.trim()}`);

/**
 * @param {{ command: string, args?: string[], name?: string, concurrency?: number, maxQueue?: number,
 *   decodeFailure?: (exit: { name: string, code: number | null, signal: string | null, stderr: string }) => Error,
 * }} options
 *   decodeFailure: the error for a non-zero exit (say, a usage error for exit 65 and a known stderr
 *   line).
 */
function createSpawnTier({
  command,
  args = [],
  name = command,
  concurrency = os.availableParallelism() * 2,
  maxQueue = 512,
  decodeFailure = childFailed,
}) {
  const limiter = new Limiter({ concurrency, maxQueue });
  let closed = false;

  const runOnce = (input, signal) =>
    new Promise((resolve, reject) => {
      // No shell. `signal` kills the child when the caller gives up.
      const child = spawnOwned(command, args, { stdio: ['pipe', 'pipe', 'pipe'], signal });
      // First: a failed spawn (EMFILE, ENOENT) reports here and leaves stdio null.
      child.on('error', (cause) => reject(new TierError('SPAWN_FAILED', cause.message, { cause })));
      if (!child.stdin) return;
      const out = [];
      const err = [];
      child.stdout.on('data', (chunk) => out.push(chunk));
      child.stderr.on('data', (chunk) => err.push(chunk));
      child.stdin.on('error', () => {}); // EPIPE if it died early; 'close' reports it
      child.on('close', (code, exitSignal) => {
        if (code === 0) return resolve(out.length === 1 ? out[0] : Buffer.concat(out));
        const failure = decodeFailure({ name, code, signal: exitSignal, stderr: Buffer.concat(err).toString('utf8') });
        reject(
          STOP_SIGNALS.has(exitSignal) && !signal?.aborted
            ? Object.assign(failure, { stoppedBySignal: true })
            : failure,
        );
      });
      child.stdin.end(input);
    });

  return {
    /**
     * @param {string | Uint8Array} input
     * @param {{ signal?: AbortSignal, priority?: 'low' | 'normal' }} [options]
     * @returns {Promise<Buffer>}
     */
    run(input, { signal, priority } = {}) {
      if (closed) return Promise.reject(closedError());
      return limiter.run(
        () =>
          runOnce(input, signal).catch((err) => {
            // A stop signal to this process's whole group can catch a child in
            // the instant between fork and its own session (libuv blocks signals
            // there and the child takes it on unblocking). Not the call's fault:
            // it runs once more (the tier runs a function of its input).
            if (!err.stoppedBySignal) throw err;
            return runOnce(input, signal);
          }),
        signal,
        { priority },
      );
    },
    /** Calls handed over and not yet settled. */
    get running() {
      return limiter.active;
    },
    /** Calls waiting for a slot. */
    get queued() {
      return limiter.size;
    },
    async close() {
      closed = true;
    },
  };
}

module.exports = { createSpawnTier, childFailed };
