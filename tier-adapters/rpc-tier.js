'use strict';

// The work done by an RPC server elsewhere (docs/rpc-protocol.md): a few
// connections, each carrying many calls at once, answered by id. The rest
// wait here, bounded. A call has a deadline (504); a client that hangs up
// takes its call out of the queue, or has its late answer dropped; a lost
// connection fails its calls (502) and is made again, after a back-off
// while connecting keeps failing; a busy answer is a 503, as over HTTP.
const { RpcConnection, GONE, TIMED_OUT } = require('./rpc-connection');
const { Limiter } = require('./bounded-limiter');
const { createBackoff } = require('./backoff');
const { TierError, serverBusy } = require('./errors');
const { closedError } = require('./closing');

const STATUS_OK = 0;
const STATUS_BUSY = 255;

/** Default for an error status: the payload is the message. */
const rpcError = (_status, payload) => new TierError('RPC_ERROR', payload.toString('utf8'), { status: 500 });

/**
 * @param {{ path?: string, host?: string, port?: number, name?: string, connections?: number,
 *   callsPerConnection?: number, maxQueue?: number, deadlineMs?: number, idleMs?: number,
 *   maxAnswerBytes?: number, decodeError?: (status: number, payload: Buffer) => Error }} options
 *   path: a Unix socket; or host and port (TCP).
 *   name: in the 502/504 texts: "<name> unavailable", "<name> timed out".
 *   callsPerConnection: in flight on one connection; at most the server's own bound.
 *   idleMs: a connection with no call for this long is closed, below the
 *   server's idle timeout, so a call is never sent on one it is closing.
 */
function createRpcTier({
  path,
  host,
  port,
  name = 'rpc server',
  connections = 2,
  callsPerConnection = 32,
  maxQueue = 512,
  deadlineMs = 5_000,
  idleMs = 4_000,
  maxAnswerBytes = 1 << 20,
  decodeError = rpcError,
}) {
  const limiter = new Limiter({ concurrency: connections * callsPerConnection, maxQueue });
  const slots = Array.from({ length: connections }, () => ({
    connection: null,
    idle: null,
    // Short: a connect to a dead server costs little, and every call made
    // during the wait fails fast (502), so a restarted server is found at once.
    backoff: createBackoff({ initialMs: 20, maxMs: 500, resetAfterMs: 1_000 }),
    retryAt: 0,
  }));
  const unavailable = (cause) =>
    new TierError('RPC_UNAVAILABLE', `${name} unavailable`, { status: 502, expose: true, cause });
  const timedOut = () => new TierError('RPC_TIMEOUT', `${name} timed out`, { status: 504, expose: true });
  let closed = false;
  let inFlight = 0;
  /** @type {(value?: unknown) => void} */
  let settled = () => {};

  const connect = (slot) => {
    const connection = new RpcConnection({ path, host, port, maxAnswerBytes, deadlineMs });
    const openedAt = Date.now();
    let opened = false;
    connection.connected.then(
      () => (opened = true),
      () => {},
    );
    connection.once('close', () => {
      if (slot.connection === connection) slot.connection = null;
      clearTimeout(slot.idle);
      // Connecting failed, or the server closed on us soon after: wait before the next try.
      slot.retryAt = Date.now() + slot.backoff.next(opened ? Date.now() - openedAt : 0);
    });
    slot.connection = connection;
    return connection;
  };

  /** The connection with the fewest calls in flight, made if need be. */
  const pick = () => {
    let best;
    for (const slot of slots) {
      const load = slot.connection ? slot.connection.inFlight : slot.retryAt > Date.now() ? Infinity : 0;
      if (load !== Infinity && (!best || load < best.load)) best = { slot, load };
    }
    if (!best) return null;
    const { slot } = best;
    clearTimeout(slot.idle);
    return slot.connection ?? connect(slot);
  };

  // close() waits for the queue too: a queued call would otherwise open a
  // connection after it.
  const settleIfIdle = () => {
    if (inFlight === 0 && limiter.size === 0) settled();
  };

  const call = (input, signal) =>
    new Promise((resolve, reject) => {
      const connection = pick();
      if (!connection) {
        reject(unavailable());
        return void settleIfIdle();
      }
      inFlight++;
      const done = () => {
        signal?.removeEventListener('abort', onAbort);
        inFlight--;
        settleIfIdle();
        if (!connection.inFlight && !connection.closed) {
          const slot = slots.find((s) => s.connection === connection);
          if (slot) slot.idle = setTimeout(() => connection.close(), idleMs).unref();
        }
      };
      const id = connection.send(input, (status, payload) => {
        done();
        if (status === STATUS_OK) resolve(payload);
        else if (status === STATUS_BUSY) reject(serverBusy());
        else if (status === GONE) reject(unavailable());
        else if (status === TIMED_OUT) reject(timedOut());
        else reject(decodeError(status, payload));
      });
      const onAbort = () => {
        connection.forget(id);
        done();
        reject(signal.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    });

  return {
    /**
     * @param {string | Uint8Array} input
     * @param {{ signal?: AbortSignal, priority?: 'low' | 'normal' }} [options]
     * @returns {Promise<Buffer>}
     */
    run(input, { signal, priority } = {}) {
      if (closed) return Promise.reject(closedError());
      return limiter.run(() => call(input, signal), signal, { priority });
    },
    /** Calls handed over and not yet settled. */
    get running() {
      return limiter.active;
    },
    /** Calls waiting for a slot. */
    get queued() {
      return limiter.size;
    },
    /** Finishes the calls in flight and queued, then closes the connections. */
    async close() {
      closed = true;
      if (inFlight || limiter.size) await new Promise((resolve) => (settled = resolve));
      await Promise.all(
        slots.map((slot) => {
          clearTimeout(slot.idle);
          return slot.connection?.close();
        }),
      );
    },
  };
}

module.exports = { createRpcTier };
