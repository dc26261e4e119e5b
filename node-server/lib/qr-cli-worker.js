'use strict';

// One long-lived `qr_cli --serve` child and its framed stdio protocol
// (qr_cli/src/serve.rs): request = u32 BE length + UTF-8 text; response =
// u8 status (0 = PNG, else qr_lib::QrError::number) + u32 BE length + payload.
const { spawnOwned } = require('./children');
const { EventEmitter } = require('node:events');
const { QrError, coreError } = require('./errors');

const HEADER_BYTES = 5;

class QrCliWorker extends EventEmitter {
  constructor(bin) {
    super();
    this.pending = []; // answered in request order
    this.chunks = [];
    this.buffered = 0;
    this.exited = false;
    this.child = spawnOwned(bin, ['--serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.child.stdout.on('data', (chunk) => this.onData(chunk));
    this.child.stdin.on('error', () => {}); // EPIPE when it dies; 'exit' handles it
    this.child.on('error', (err) => this.onExit(err.message));
    this.child.on('exit', (code, signal) => this.onExit(`exited with ${signal ?? code}`));
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
      this.pending.push({ resolve, reject });
      this.child.stdin.write(frame);
    });
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
      const { resolve, reject } = this.pending.shift();
      if (data[0] === 0) resolve(payload);
      else reject(coreError(data[0], payload.toString('utf8')));
    }
  }

  flatten() {
    const data = Buffer.concat(this.chunks, this.buffered);
    this.chunks = [data];
    return data;
  }

  onExit(reason) {
    if (this.exited) return;
    this.exited = true;
    const lost = this.pending.splice(0);
    for (const { reject } of lost) reject(new QrError('CHILD_FAILED', `qr_cli worker ${reason}`));
    this.emit('exit', reason);
  }

  /** Closes stdin so the worker finishes what it has and exits by itself. */
  close() {
    if (this.exited) return Promise.resolve();
    return new Promise((resolve) => {
      this.once('exit', resolve);
      this.child.stdin.end();
    });
  }

  kill(signal) {
    this.child.kill(signal);
  }
}

module.exports = { QrCliWorker };
