'use strict';

// One long-lived `qr_cli --serve` child and its framed stdio protocol
// (qr_cli/src/serve.rs): request = u32 BE length + UTF-8 text; response =
// u8 status (0 = PNG, else qr_lib::QrError::number) + u32 BE length + payload.
const { spawnOwned } = require('./children');
const { EventEmitter } = require('node:events');
const { QrError, coreError } = require('./errors');

const HEADER_BYTES = 5;
// A generation takes well under a millisecond; a request unanswered this long
// means the worker hangs (stopped, looping, starved), and it is replaced.
const DEADLINE_MS = 2000;

class QrCliWorker extends EventEmitter {
  constructor(bin, { deadlineMs = DEADLINE_MS } = {}) {
    super();
    this.deadlineMs = deadlineMs;
    this.pending = []; // { resolve, reject, sentAt }, answered in request order
    this.chunks = [];
    this.buffered = 0;
    this.exited = false;
    this.timer = null;
    this.child = spawnOwned(bin, ['--serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
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

  generateQrCode(text) {
    if (this.exited) return Promise.reject(new QrError('CHILD_FAILED', 'qr_cli worker is gone'));
    const len = Buffer.byteLength(text, 'utf8');
    const frame = Buffer.allocUnsafe(4 + len);
    frame.writeUInt32BE(len, 0);
    frame.write(text, 4, 'utf8');
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
      // subarray, not a copy: the PNG stays in the chunk the pipe gave us.
      const payload = data.subarray(HEADER_BYTES, frameBytes);
      const rest = data.subarray(frameBytes);
      this.chunks = rest.length ? [rest] : [];
      this.buffered = rest.length;
      const request = this.pending.shift();
      // An answer nobody asked for: the stream is out of step, the worker unusable.
      if (!request) return this.kill('SIGKILL', 'answered a request it was not sent');
      this.armDeadline();
      if (data[0] === 0) request.resolve(payload);
      else request.reject(coreError(data[0], payload.toString('utf8')));
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
    for (const { reject } of lost) reject(new QrError('CHILD_FAILED', `qr_cli worker ${why}`));
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

module.exports = { QrCliWorker };
