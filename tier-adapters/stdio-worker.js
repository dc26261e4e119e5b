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
// The longest answer a worker may send unless the tier says otherwise. A
// length past the tier's bound is no answer but bytes out of step (a debug
// line read as a header: "debu" is a length of 1.7 GB).
const MAX_ANSWER_BYTES = 16 << 20;
// How much of the junk the worker's exit reason quotes.
const JUNK_QUOTED_BYTES = 32;

/** Default for a non-zero status: the payload is the message. */
const workerError = (_status, payload) => new TierError('WORKER_ERROR', payload.toString('utf8'), { status: 500 });

class StdioWorker extends EventEmitter {
  /**
   * @param {{ command: string, args?: string[], name?: string, deadlineMs: number,
   *   decodeError?: (status: number, payload: Buffer) => Error, maxAnswerBytes?: number,
   *   checkAnswer?: (status: number, payload: Buffer) => boolean }} options
   *   maxAnswerBytes: a longer answer's header is junk (default 16 MiB).
   *   checkAnswer: whether a whole frame is a real answer (a known status, a
   *   payload of the expected form); anything else is junk. The frame itself
   *   carries no check: a few stray bytes can look like a header, and only
   *   this tells their "answer" from a real one.
   */
  constructor({
    command,
    args = [],
    name = command,
    deadlineMs,
    decodeError = workerError,
    maxAnswerBytes = MAX_ANSWER_BYTES,
    checkAnswer = () => true,
  }) {
    super();
    this.name = name;
    this.deadlineMs = deadlineMs;
    this.decodeError = decodeError;
    this.maxAnswerBytes = maxAnswerBytes;
    this.checkAnswer = checkAnswer;
    this.pending = []; // { resolve, reject, sentAt }, answered in request order
    this.chunks = [];
    this.buffered = 0;
    this.exited = false;
    /** @type {string | undefined} why it was killed, once it is */
    this.reason = undefined;
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
    if (this.exited || this.junk) return Promise.reject(new TierError('CHILD_FAILED', `${this.name} worker is gone`));
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
    if (this.junk) return; // being killed: nothing more is read as an answer
    // Bytes with no request waiting are no answer (a port printing to
    // stdout); kept, they would be read as the next call's header.
    if (!this.pending.length) return this.outOfStep('wrote bytes while no request was waiting', chunk);
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    for (;;) {
      if (this.buffered < HEADER_BYTES) return;
      const head = this.chunks[0].length >= HEADER_BYTES ? this.chunks[0] : this.flatten();
      const length = head.readUInt32BE(1);
      if (length > this.maxAnswerBytes) return this.outOfStep(`sent a length of ${length} bytes`, head);
      const frameBytes = HEADER_BYTES + length;
      if (this.buffered < frameBytes) return;
      const data = this.chunks.length === 1 ? this.chunks[0] : this.flatten();
      // subarray, not a copy: the payload stays in the chunk the pipe gave us.
      const payload = data.subarray(HEADER_BYTES, frameBytes);
      if (!this.checkAnswer(data[0], payload)) return this.outOfStep('sent a frame that is no answer', data);
      const rest = data.subarray(frameBytes);
      this.chunks = rest.length ? [rest] : [];
      this.buffered = rest.length;
      const request = this.pending.shift();
      // An answer nobody asked for: the stream is out of step, the worker unusable.
      if (!request) return this.outOfStep('answered a request it was not sent', rest);
      this.armDeadline();
      if (data[0] === 0) request.resolve(payload);
      else request.reject(this.decodeError(data[0], payload));
    }
  }

  /**
   * Its stdout no longer holds frames in step: its unanswered calls fail and
   * it is killed (the pool replaces it), the reason quoting what it wrote.
   */
  outOfStep(what, bytes) {
    this.junk = true;
    this.chunks = [];
    this.buffered = 0;
    const quoted = JSON.stringify(bytes.subarray(0, JUNK_QUOTED_BYTES).toString('latin1'));
    this.kill('SIGKILL', `${what} (stdout is for answer frames only; it began ${quoted})`);
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

module.exports = { StdioWorker, MAX_ANSWER_BYTES };
