'use strict';

// One connection to an RPC server (docs/rpc-protocol.md) carrying many calls
// at once, answered by id in any order:
//   request = u32 BE length + u32 BE id + payload
//   answer  = u32 BE length + u32 BE id + u8 status + payload
// Frames written in one event-loop turn leave in one write (cork); answers are
// Buffers over the chunks the socket gave us, never copied.
const net = require('node:net');
const { EventEmitter } = require('node:events');

const LENGTH_BYTES = 4;
/** What `onAnswer` gets as status when the connection ended first, or the deadline passed. */
const GONE = -1;
const TIMED_OUT = -2;
const ANSWER_HEAD_BYTES = 5; // id + status
const MAX_ID = 0xffff_ffff;
const EMPTY = Buffer.alloc(0);

class RpcConnection extends EventEmitter {
  /** @param {{ path?: string, host?: string, port?: number, maxAnswerBytes: number, deadlineMs: number }} options */
  constructor({ path, host, port, maxAnswerBytes, deadlineMs }) {
    super();
    this.maxAnswerBytes = maxAnswerBytes;
    this.deadlineMs = deadlineMs;
    /**
     * In send order, so the first is the oldest.
     * @type {Map<number, { onAnswer: (status: number, payload: Buffer) => void, sentAt: number }>}
     */
    this.pending = new Map();
    // One timer for the oldest call, not one per call.
    this.timer = null;
    this.nextId = 0;
    this.chunks = [];
    this.buffered = 0;
    this.corked = false;
    this.closing = false;
    this.closed = false;
    this.socket = path ? net.connect(path) : net.connect(port, host);
    this.socket.setNoDelay?.(true);
    this.connected = new Promise((resolve, reject) => {
      this.socket.once('connect', resolve);
      this.socket.once('error', reject);
    });
    this.connected.catch(() => {}); // the 'close' below reports it to callers
    this.socket.on('data', (chunk) => this.onData(chunk));
    this.socket.on('error', () => {}); // 'close' follows with everything to say
    this.socket.on('close', () => this.end());
  }

  get inFlight() {
    return this.pending.size;
  }

  /**
   * Sends a call; `onAnswer(status, payload)` runs when its answer arrives.
   * @param {string | Uint8Array} payload @returns {number} the call's id, for `forget`
   */
  send(payload, onAnswer) {
    do this.nextId = this.nextId === MAX_ID ? 0 : this.nextId + 1;
    while (this.pending.has(this.nextId));
    const id = this.nextId;
    const len = typeof payload === 'string' ? Buffer.byteLength(payload, 'utf8') : payload.byteLength;
    const frame = Buffer.allocUnsafe(LENGTH_BYTES + 4 + len);
    frame.writeUInt32BE(4 + len, 0);
    frame.writeUInt32BE(id, 4);
    if (typeof payload === 'string') frame.write(payload, 8, 'utf8');
    else frame.set(payload, 8);
    this.pending.set(id, { onAnswer, sentAt: Date.now() });
    if (!this.timer) this.armDeadline(this.deadlineMs);
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      // After this turn's other I/O callbacks: their calls leave in the same write.
      setImmediate(() => {
        this.corked = false;
        this.socket.uncork();
      });
    }
    this.socket.write(frame);
    return id;
  }

  armDeadline(ms) {
    this.timer = setTimeout(() => this.expire(), ms).unref();
  }

  /** Calls past their deadline get TIMED_OUT; the timer moves to the oldest left. */
  expire() {
    this.timer = null;
    const now = Date.now();
    for (const [id, call] of this.pending) {
      const left = call.sentAt + this.deadlineMs - now;
      if (left > 0) return void this.armDeadline(left);
      this.pending.delete(id);
      call.onAnswer(TIMED_OUT, EMPTY);
    }
    this.endIfDone();
  }

  /** The caller gave up on a call: its answer, if it comes, is dropped. */
  forget(id) {
    this.pending.delete(id);
    this.endIfDone();
  }

  onData(chunk) {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    while (this.buffered >= LENGTH_BYTES) {
      const head = this.chunks[0].length >= LENGTH_BYTES ? this.chunks[0] : this.flatten();
      const bodyBytes = head.readUInt32BE(0);
      if (bodyBytes < ANSWER_HEAD_BYTES || bodyBytes > this.maxAnswerBytes) {
        // Not an answer of this protocol: nothing after it can be trusted.
        this.socket.destroy();
        return;
      }
      const frameBytes = LENGTH_BYTES + bodyBytes;
      if (this.buffered < frameBytes) return;
      const data = this.chunks.length === 1 ? this.chunks[0] : this.flatten();
      const id = data.readUInt32BE(LENGTH_BYTES);
      const status = data[LENGTH_BYTES + 4];
      const payload = data.subarray(LENGTH_BYTES + ANSWER_HEAD_BYTES, frameBytes);
      const rest = data.subarray(frameBytes);
      this.chunks = rest.length ? [rest] : [];
      this.buffered = rest.length;
      const call = this.pending.get(id);
      if (call) {
        this.pending.delete(id);
        call.onAnswer(status, payload);
      }
    }
    this.endIfDone();
  }

  flatten() {
    const whole = Buffer.concat(this.chunks, this.buffered);
    this.chunks = [whole];
    return whole;
  }

  /** The connection is gone: every call still waiting learns it. */
  end() {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const call of waiting) call.onAnswer(GONE, EMPTY);
    this.emit('close');
  }

  /** Closes once the calls in flight are answered. */
  close() {
    if (this.closed) return Promise.resolve();
    const closed = new Promise((resolve) => this.once('close', resolve));
    this.closing = true;
    this.endIfDone();
    return closed;
  }

  endIfDone() {
    if (this.closing && !this.pending.size) this.socket.end();
  }

  destroy() {
    this.socket.destroy();
  }
}

module.exports = { RpcConnection, GONE, TIMED_OUT };
