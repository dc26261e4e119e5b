'use strict';

// One long-lived child process speaking a framed protocol on stdio:
//   request  = u32 BE length + payload
//   response = u8 status + u32 BE length + payload   (status 0 = success)
// Answers come in request order, so a worker can have several requests in
// flight (pipelining) and needs no request ids.
const { EventEmitter } = require('node:events');
const { spawnOwned } = require('./children');
const { TierError } = require('./errors');

const HEADER_BYTES = 5;

/** Default for a non-zero status: the payload is the message. */
const workerError = (status, payload) => new TierError('WORKER_ERROR', payload.toString('utf8'), { status: 500 });

class StdioWorker extends EventEmitter {
  /**
   * @param {{ command: string, args?: string[], name?: string, deadlineMs: number,
   *   decodeError?: (status: number, payload: Buffer) => Error }} options
   */
  constructor({ command, args = [], name = command, deadlineMs, decodeError = workerError }) {
    super();
    this.name = name;
    this.deadlineMs = deadlineMs;
    this.decodeError = decodeError;
    this.pending = []; // { resolve, reject, sentAt }, answered in request order
    this.chunks = [];
    this.buffered = 0;
    this.exited = false;
    this.timer = null;
    this.child = spawnOwned(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    // First: a failed spawn (EMFILE, ENOENT) reports here and leaves stdio null.
    this.child.on('error', (err) => this.end(`failed: ${err.message}`));
    // 'close', not 'exit': every answer it wrote has been read by then.
    this.child.on('close', (code, signal) => this.end(`exited with ${signal ?? code}`));
    this.child.stdout?.on('data', (chunk) => this.onData(chunk));
    this.child.stdin?.on('error', () => {}); // EPIPE when it dies; 'close' handles it
  }

  get inFlight() {
    return this.pending.length;
  }

  /** @param {string | Uint8Array} input @returns {Promise<Buffer>} */
  call(input) {
    if (this.exited) return Promise.reject(new TierError('CHILD_FAILED', `${this.name} worker is gone`));
    const len = typeof input === 'string' ? Buffer.byteLength(input, 'utf8') : input.byteLength;
    const frame = Buffer.allocUnsafe(4 + len);
    frame.writeUInt32BE(len, 0);
    if (typeof input === 'string') frame.write(input, 4, 'utf8');
    else frame.set(input, 4);
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject, sentAt: Date.now() });
      if (this.pending.length === 1) this.armDeadline();
      this.child.stdin.write(frame);
    });
  }

  /** Times the oldest unanswered request. */
  armDeadline() {
    clearTimeout(this.timer);
    if (!this.pending.length) return;
    const wait = this.pending[0].sentAt + this.deadlineMs - Date.now();
    this.timer = setTimeout(() => this.kill('SIGKILL', `missed the ${this.deadlineMs} ms deadline`), Math.max(wait, 0));
    this.timer.unref();
  }

  onData(chunk) {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    for (;;) {
      if (this.buffered < HEADER_BYTES) return;
      const head = this.chunks[0].length >= HEADER_BYTES ? this.chunks[0] : this.flatten();
      const frameBytes = HEADER_BYTES + head.readUInt32BE(1);
      if (this.buffered < frameBytes) return;
      const data = this.chunks.length === 1 ? this.chunks[0] : this.flatten();
      // subarray, not a copy: the payload stays in the chunk the pipe gave us.
      const payload = data.subarray(HEADER_BYTES, frameBytes);
      const rest = data.subarray(frameBytes);
      this.chunks = rest.length ? [rest] : [];
      this.buffered = rest.length;
      const request = this.pending.shift();
      // An answer nobody asked for: the stream is out of step, the worker unusable.
      if (!request) return this.kill('SIGKILL', 'answered a request it was not sent');
      this.armDeadline();
      if (data[0] === 0) request.resolve(payload);
      else request.reject(this.decodeError(data[0], payload));
    }
  }

  flatten() {
    const data = Buffer.concat(this.chunks, this.buffered);
    this.chunks = [data];
    return data;
  }

  end(reason) {
    if (this.exited) return;
    this.exited = true;
    clearTimeout(this.timer);
    const why = this.reason ?? reason;
    const lost = this.pending.splice(0);
    for (const { reject } of lost) reject(new TierError('CHILD_FAILED', `${this.name} worker ${why}`));
    this.emit('exit', why);
  }

  /** Closes stdin so the worker finishes what it has and exits by itself. */
  close() {
    if (this.exited) return Promise.resolve();
    return new Promise((resolve) => {
      this.once('exit', resolve);
      this.child.stdin.end();
    });
  }

  /** Kills the worker; its unanswered requests fail with `reason`. */
  kill(signal, reason) {
    if (reason) this.reason ??= reason;
    this.child.kill(signal);
  }
}

module.exports = { StdioWorker };
