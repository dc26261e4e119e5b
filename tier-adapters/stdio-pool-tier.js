'use strict';

// A fixed pool of long-lived workers speaking the framed stdio protocol of
// stdio-worker.js. A worker that dies is replaced, after a delay that grows
// while replacements keep dying young; its in-flight calls fail (500).
const os = require('node:os');
const { StdioWorker } = require('./stdio-worker');
const { Limiter } = require('./bounded-limiter');
const { createBackoff } = require('./backoff');
const { closedError } = require('./closing');

// Frames written ahead to each worker: enough that it never waits for Node,
// few enough that the rest wait here, where a gone client can leave the queue.
const PIPELINE_DEPTH = 4;
// A call unanswered this long means the worker hangs (stopped, looping,
// starved): it is killed and replaced.
const DEADLINE_MS = 2000;

/**
 * @param {{ command: string, args?: string[], name?: string, size?: number, maxQueue?: number,
 *   pipelineDepth?: number, deadlineMs?: number, decodeError?: (status: number, payload: Buffer) => Error,
 *   maxAnswerBytes?: number, checkAnswer?: (status: number, payload: Buffer) => boolean,
 *   log?: (line: string) => void, onRestart?: () => void }} options
 *   onRestart: a worker exited and another is being started in its place.
 */
function createStdioPoolTier({
  command,
  args = [],
  name = command,
  size = os.availableParallelism(),
  maxQueue = 512,
  pipelineDepth = PIPELINE_DEPTH,
  deadlineMs = DEADLINE_MS,
  decodeError,
  maxAnswerBytes,
  checkAnswer,
  log = console.error,
  onRestart,
}) {
  const limiter = new Limiter({ concurrency: size * pipelineDepth, maxQueue });
  let closed = false;

  const spawnWorker = (slot, backoff) => {
    const worker = new StdioWorker({ command, args, name, deadlineMs, decodeError, maxAnswerBytes, checkAnswer });
    const started = Date.now();
    worker.on('exit', (reason) => {
      if (closed) return;
      const delay = backoff.next(Date.now() - started);
      log(`${name} worker ${worker.child.pid} ${reason}; replacing it in ${delay} ms`);
      onRestart?.();
      setTimeout(() => {
        if (!closed) workers[slot] = spawnWorker(slot, backoff);
      }, delay).unref();
    });
    return worker;
  };
  const workers = Array.from({ length: size }, (_, slot) => spawnWorker(slot, createBackoff()));

  const dispatch = (input) => {
    // Least in-flight first: a slow call does not queue others behind it.
    let best;
    for (const worker of workers) {
      if (worker.exited || worker.junk) continue;
      if (!best || worker.inFlight < best.inFlight) best = worker;
    }
    return (best ?? workers[0]).call(input);
  };

  return {
    /**
     * @param {string | Uint8Array} input
     * @param {{ signal?: AbortSignal, priority?: 'low' | 'normal' }} [options]
     * @returns {Promise<Buffer>}
     */
    run(input, { signal, priority } = {}) {
      if (closed) return Promise.reject(closedError());
      return limiter.run(() => dispatch(input), signal, { priority });
    },
    /** Calls handed over and not yet settled. */
    get running() {
      return limiter.active;
    },
    /** Calls waiting for a slot. */
    get queued() {
      return limiter.size;
    },
    /** Finishes what the workers have, then lets them exit. */
    async close() {
      closed = true;
      await Promise.all(workers.map((w) => w.close()));
    },
  };
}

module.exports = { createStdioPoolTier };
