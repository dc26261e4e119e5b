'use strict';

// Log lines written by a thread of their own, as a Rust server's
// tracing-appender does: the thread makes the blocking write(2) to the pipe
// or file, so a log reader that stops reading stalls that thread and never
// the event loop. What waits for it is bounded: past `maxPendingBytes`
// lines are dropped and counted, not memory grown.
const { Worker } = require('node:worker_threads');

// 8 MiB: some 40,000 access lines, seconds of a busy server's log.
const MAX_PENDING_BYTES = 8 << 20;

// The thread: writes each batch in whole lines of at most PIPE_BUF (4096)
// bytes, which a pipe takes whole, so that the lines of a cluster's
// processes, which share the pipe, never interleave mid-line; a line longer
// than that goes alone. Says how many bytes and lines are done.
const WRITER = `
const fs = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');
const PIPE_BUF = 4096;
const pause = new Int32Array(new SharedArrayBuffer(4));
function writeAll(bytes) {
  for (let at = 0; at < bytes.length;) {
    try {
      at += fs.writeSync(workerData.fd, bytes, at);
    } catch (err) {
      if (err.code !== 'EAGAIN') throw err;
      Atomics.wait(pause, 0, 0, 10); // a non-blocking descriptor, full
    }
  }
}
parentPort.on('message', (text) => {
  const bytes = Buffer.from(text);
  for (let start = 0; start < bytes.length;) {
    let end = Math.min(start + PIPE_BUF, bytes.length);
    if (end < bytes.length) {
      const lastEnd = bytes.lastIndexOf(10, end - 1);
      end = lastEnd >= start ? lastEnd + 1 : bytes.indexOf(10, end) + 1 || bytes.length;
    }
    writeAll(bytes.subarray(start, end));
    start = end;
  }
  let lines = 0;
  for (let at = bytes.indexOf(10); at >= 0; at = bytes.indexOf(10, at + 1)) lines++;
  parentPort.postMessage([bytes.length, lines]);
});
`;

/**
 * A pino destination (`write(line)`) writing to `fd` from a thread of its
 * own. Lines are handed over once per turn of the event loop, in one
 * message; `dropped()` counts those refused past `maxPendingBytes` (or
 * after the descriptor failed, say the reader hung up); `flush(ms)`
 * resolves true once everything handed in is written, false after `ms` or
 * when the descriptor failed.
 * @param {{ fd?: number, maxPendingBytes?: number }} [options]
 */
function createLineWriter({ fd = 1, maxPendingBytes = MAX_PENDING_BYTES } = {}) {
  let thread = null; // started with the first line
  let failed = false;
  let batch = ''; // lines of this turn, not yet handed over
  let pending = 0; // bytes taken and not yet written
  let pendingLines = 0;
  let dropped = 0;
  let scheduled = false;
  const waiting = new Set(); // flush() resolvers

  function write(line) {
    const bytes = Buffer.byteLength(line);
    if (failed || pending + bytes > maxPendingBytes) {
      dropped++;
      return true;
    }
    pending += bytes;
    pendingLines++;
    batch += line;
    if (!scheduled) {
      scheduled = true;
      setImmediate(handOver);
    }
    return true;
  }

  function handOver() {
    scheduled = false;
    if (failed) return;
    thread ??= start();
    // Held while lines wait, so that a process ending on its own writes them first.
    thread.ref();
    thread.postMessage(batch);
    batch = '';
  }

  function start() {
    const worker = new Worker(WRITER, { eval: true, workerData: { fd }, stdout: false, stderr: false });
    worker.on('message', ([bytes, lines]) => {
      if (failed) return;
      pending -= bytes;
      pendingLines -= lines;
      if (pending > 0) return;
      // Nothing waits: an idle thread keeps no process alive.
      worker.unref();
      settle(true);
    });
    // The descriptor failed (EPIPE: nobody reads any more; ENOSPC): what is
    // pending, and every line after, is dropped and counted, said once on stderr.
    worker.on('error', (/** @type {NodeJS.ErrnoException} */ err) => {
      failed = true;
      dropped += pendingLines;
      pending = pendingLines = 0;
      batch = '';
      process.stderr.write(`log: writing to descriptor ${fd} failed (${err.code ?? err.message}); lines are dropped\n`);
      settle(false);
    });
    return worker;
  }

  function settle(done) {
    for (const resolve of waiting) resolve(done);
    waiting.clear();
  }

  return {
    write,
    dropped: () => dropped,
    flush(ms) {
      if (failed) return Promise.resolve(false);
      if (pending === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timer = setTimeout(() => waiting.delete(finish) && resolve(false), ms);
        const finish = (done) => {
          clearTimeout(timer);
          resolve(done);
        };
        waiting.add(finish);
      });
    },
  };
}

module.exports = { createLineWriter, MAX_PENDING_BYTES };
