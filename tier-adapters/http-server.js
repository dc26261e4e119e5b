'use strict';

// An HTTP server around any request handler (an express app), with the bounds
// that keep one client from taking it down, and a drain for a clean stop.
const http = require('node:http');
const net = require('node:net');
const { answerClientError, refuseConnect, LINGER_MS } = require('./http-limits');
const { SERVER_BUSY, RETRY_AFTER_SECONDS } = require('./errors');

// A connection's state, on its socket: isPipelined(req) reads it with no server at hand.
const STATE = Symbol('tier-adapters connection state');

const LIMITS = {
  // An unfinished request head is cut off after this (408); hyper: header_read_timeout.
  headersTimeoutMs: 10_000,
  // A whole request, body included (408). The API is GET only: no request
  // needs longer than its head.
  requestTimeoutMs: 10_000,
  // No byte either way for this long closes the connection: an idle
  // keep-alive connection, one that never sends, a reader that stopped reading.
  idleTimeoutMs: 10_000,
  // Open connections per process; the next one is answered 503 and closed.
  maxConnections: 4096,
  // Open connections per client address (0: no limit but maxConnections);
  // the next one is answered 503 and closed. An address is a client only
  // when clients connect directly: behind a proxy every client is the proxy.
  maxConnectionsPerClient: 0,
  // Refusals that may linger at once reading what their client still sends;
  // past it a refusal closes as soon as its answer is written, so that a
  // connection storm cannot take the descriptors the cap keeps in reserve.
  lingeringRefusals: 32,
  // Requests of one connection worked on at once. Pipelined requests past it
  // wait, and the connection is not read meanwhile, as hyper and nginx do.
  pipelineDepth: 1,
  // Pipelined requests that may wait behind the one being answered. Node's
  // parser turns a whole read (up to 64 KiB: 2,000 short requests) into
  // objects at once, where hyper and nginx keep the unparsed bytes.
  // One more closes the connection after the answer in progress; the client
  // resends what it pipelined (RFC 9112 section 9.3.2).
  maxPipelined: 32,
  // Header fields of a request kept; Node drops the rest (hyper's limit, 100,
  // answers 431). Node makes a string of every field its parser reads, up to
  // 16 KiB of head: 1,600 fields of 10 bytes each, kept until the head
  // overflows, grew the heap by 35 MB under a client sending such heads.
  maxHeadersCount: 100,
};

// What `parser.onIncoming` returns to make llhttp stop after this head
// (on_headers_complete's "upgrade": HPE_PAUSED_UPGRADE; Node drops the rest of the read).
const STOP_PARSING = 2;

// How often a drain closes idle connections; how long a pipelining one must
// show no read and no request before it counts as idle (what its client
// sent before the signal is read well within it, even when the kernel is
// slow to hand it over); and how long it spares one whose client has yet to
// read an answer.
const SWEEP_MS = 50;
const QUIET_MS = 50;
const BLOCKED_PATIENCE_MS = 1000;

// The same 503 a full queue gets (errors.js: serverBusy), written before any request is read.
const REFUSAL =
  'HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n' +
  `Retry-After: ${RETRY_AFTER_SECONDS}\r\nConnection: close\r\n` +
  `Content-Length: ${Buffer.byteLength(SERVER_BUSY)}\r\n\r\n${SERVER_BUSY}`;

/**
 * @param {(req: http.IncomingMessage, res: http.ServerResponse) => void} handler e.g. an express app
 * @param {Partial<typeof LIMITS> & { onRefused?: (reason: 'connection_cap' | 'client_cap') => void,
 *   onPipelineOverflow?: () => void, arrivals?: { connected: () => void } }} [options]
 *   onRefused: a connection was refused 503 past the cap, or past its address's share.
 *   onPipelineOverflow: a connection pipelined past maxPipelined and is being closed.
 *   arrivals: told of every accepted connection (createArrivals: the event-loop tiers' `deferTurn`).
 * @returns {{ server: http.Server, shutdown: () => Promise<void>, openConnections: () => number }}
 */
function createHttpServer(handler, options = {}) {
  const limits = { ...LIMITS, ...options };
  const connections = new Map(); // socket -> its state (onConnection)
  const perClient = new Map(); // remote address -> its open connections (maxConnectionsPerClient)
  let lingering = 0;
  let draining = false;

  const server = http.createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.idleTimeoutMs,
      // Node checks the two timeouts above on this interval (default 30 s).
      connectionsCheckingInterval: 1000,
      noDelay: true,
    },
    onRequest,
  );
  server.maxHeadersCount = limits.maxHeadersCount;
  server.timeout = limits.idleTimeoutMs;
  server.keepAliveTimeout = limits.idleTimeoutMs;
  server.on('clientError', (err, socket) => answerClientError(err, socket, (write) => afterAnswers(socket, write)));
  server.on('connect', refuseConnect);
  server.on('connection', onConnection);

  function onConnection(socket) {
    options.arrivals?.connected();
    if (connections.size >= limits.maxConnections) return refuse(socket, 'connection_cap');
    if (!holdForClient(socket)) return refuse(socket, 'client_cap');
    const conn = {
      active: 0,
      queue: [],
      current: null,
      pipelining: false,
      closing: false,
      /** During a drain: when the connection last read or was given more to answer, and its bytes read then. */
      activeAt: 0,
      bytesRead: 0,
      blockedSince: 0,
      /** @type {(() => void) | null} the refusal waiting for the answers before it */
      afterAnswers: null,
    };
    connections.set(socket, conn);
    socket[STATE] = conn;
    socket.once('close', () => {
      connections.delete(socket);
      conn.queue.length = 0;
    });
    // Node resumes a socket it paused for its own write backpressure; while
    // requests of ours wait, it stays paused.
    socket.on('resume', () => (conn.queue.length || conn.closing || conn.afterAnswers) && pause(socket));
    stopParsingWhenClosing(socket, conn);
  }

  /**
   * Node's parser turns a whole read (up to 64 KiB, some 1,300 short
   * requests) into request and response objects before any code of ours
   * runs, and a pause only takes effect after it: a hundred connections
   * writing 64 KiB each made 130,000 of them, 141-345 MB. The parser asks
   * `onIncoming` what to do after each head; once the connection is closing
   * (past maxPipelined) the answer is 2, "an upgrade, the rest is another
   * protocol", and llhttp stops there: the rest of that read is dropped with
   * the connection, as closeAfterCurrent drops the requests already made.
   */
  function stopParsingWhenClosing(socket, conn) {
    const parser = socket.parser;
    const onIncoming = parser?.onIncoming;
    if (typeof onIncoming !== 'function') return;
    parser.onIncoming = function boundedOnIncoming(req, keepAlive) {
      if (conn.closing) return STOP_PARSING;
      const next = onIncoming.call(this, req, keepAlive);
      if (!conn.closing) return next;
      pause(socket);
      return STOP_PARSING;
    };
  }

  /** Counts the connection against its address, unless that address has its share already. */
  function holdForClient(socket) {
    if (!limits.maxConnectionsPerClient) return true;
    const address = socket.remoteAddress ?? '';
    const open = perClient.get(address) ?? 0;
    if (open >= limits.maxConnectionsPerClient) return false;
    perClient.set(address, open + 1);
    socket.once('close', () => {
      const left = perClient.get(address) - 1;
      if (left) perClient.set(address, left);
      else perClient.delete(address);
    });
    return true;
  }

  /**
   * Runs `write` (the refusal of a head Node could not parse) once every
   * request the connection sent before it is answered: those were read, so
   * they are answered, and the refusal is the connection's last word.
   */
  function afterAnswers(socket, write) {
    const conn = connections.get(socket);
    if (!conn || (conn.active === 0 && conn.queue.length === 0)) return write();
    // Nothing after a bad head is parsed: the connection is not read until its refusal is written.
    pause(socket);
    // A client that does not read the answers before it keeps its place no longer than a request may take.
    const deadline = setTimeout(() => socket.destroy(), limits.requestTimeoutMs).unref();
    socket.once('close', () => clearTimeout(deadline));
    conn.afterAnswers = () => {
      clearTimeout(deadline);
      write();
    };
  }

  /** 503 at once, then read (and drop) what the client still sends for a while. */
  function refuse(socket, reason) {
    options.onRefused?.(reason);
    socket.end(REFUSAL);
    if (lingering >= limits.lingeringRefusals) {
      socket.once('finish', () => socket.destroy());
      return;
    }
    lingering++;
    const linger = setTimeout(() => socket.destroy(), LINGER_MS).unref();
    socket.once('close', () => {
      lingering--;
      clearTimeout(linger);
    });
  }

  function onRequest(req, res) {
    const conn = connections.get(req.socket);
    if (!conn || conn.closing) return; // refused 503, or past maxPipelined: never answered
    if (conn.active < limits.pipelineDepth) return dispatch(req.socket, conn, req, res);
    conn.pipelining = true;
    if (conn.queue.length >= limits.maxPipelined) return closeAfterCurrent(req.socket, conn);
    conn.queue.push([req, res]);
    pause(req.socket);
  }

  /**
   * Too far ahead: the waiting requests are dropped with the rest of what was
   * read, the answer in progress says `Connection: close`, and the connection
   * closes once it is written, freeing everything the parser made.
   */
  function closeAfterCurrent(socket, conn) {
    conn.closing = true;
    conn.queue.length = 0;
    options.onPipelineOverflow?.();
    const res = conn.current;
    if (!res.headersSent) res.setHeader('Connection', 'close');
    else if (!conn.active) socket.destroySoon();
  }

  function dispatch(socket, conn, req, res) {
    conn.active++;
    conn.current = res;
    // A pipelining client may have more requests unread in the kernel: its
    // connection is read on, and closed by the sweep once found idle.
    if (draining && conn.queue.length === 0 && !conn.pipelining) res.setHeader('Connection', 'close');
    res.once('close', () => {
      conn.active--;
      if (socket.destroyed) return;
      if (conn.closing) return socket.destroySoon();
      // A client that does not read its answers gets no more work done for
      // it until it does: the answers would pile up in the socket's buffer.
      if (!socket.writableNeedDrain) return next(socket, conn);
      conn.blockedSince = performance.now();
      socket.once('drain', () => {
        conn.blockedSince = 0;
        next(socket, conn);
      });
    });
    handler(req, res);
  }

  function next(socket, conn) {
    const waiting = conn.queue.shift();
    if (waiting) return dispatch(socket, conn, ...waiting);
    if (conn.afterAnswers) {
      if (conn.active) return; // pipelineDepth > 1: answers still being made
      const write = conn.afterAnswers;
      conn.afterAnswers = null;
      // Read on while the refusal lingers, so the client's close is seen.
      resume(socket);
      return write();
    }
    if (draining) readOn(socket, conn);
    resume(socket);
  }

  /**
   * What a pipelining client sent while its connection was paused is read
   * once it resumes; until the connection has been quiet for QUIET_MS, a
   * drain's sweep would take it for idle.
   */
  function readOn(socket, conn) {
    conn.activeAt = performance.now();
    conn.bytesRead = socket.bytesRead;
  }

  /** Whether a pipelining connection read, or was being answered, within QUIET_MS (during a drain). */
  function busyLately(socket, conn, now) {
    if (conn.active || socket.bytesRead !== conn.bytesRead) readOn(socket, conn);
    return now - conn.activeAt < QUIET_MS;
  }

  /**
   * Stops accepting, answers every request whose head has arrived (and what a
   * pipelining client had sent), closes each connection once idle (answering
   * with `Connection: close` from now on where no pipelining) and resolves
   * when all are closed.
   */
  function shutdown() {
    draining = true;
    // net.Server's close, not http.Server's: that one closes every idle
    // connection at once, a pipelining one with requests still unread too.
    // Bun's http.Server is no net.Server: its own close, which leaves open connections as they are.
    const stopListening =
      server instanceof net.Server ? net.Server.prototype.close : /** @type {{ close: Function }} */ (server).close;
    const closed = new Promise((resolve) => stopListening.call(server, resolve));
    for (const [socket, conn] of connections) {
      const res = conn.current;
      if (res && !res.headersSent && conn.queue.length === 0 && !conn.pipelining) res.setHeader('Connection', 'close');
      if (conn.pipelining) readOn(socket, conn);
    }
    // Idle connections are closed, but not while a pipelining one is about to
    // read what its client sent (or waits, up to a second, for its client to
    // take an answer first): Node would take it for idle. A client that never
    // stops pipelining holds the drain to the caller's shutdown timeout.
    const closeIdle = () => {
      const now = performance.now();
      const pending = (socket, conn) =>
        busyLately(socket, conn, now) || (conn.blockedSince > 0 && now - conn.blockedSince < BLOCKED_PATIENCE_MS);
      let spared = false;
      // Every pipelining connection looked at, so each one's quiet is timed from its own last read.
      for (const [socket, conn] of connections) if (conn.pipelining && pending(socket, conn)) spared = true;
      if (spared) return;
      server.closeIdleConnections();
    };
    closeIdle();
    const sweep = setInterval(closeIdle, SWEEP_MS);
    return closed.finally(() => clearInterval(sweep));
  }

  return {
    server,
    shutdown,
    openConnections: () => connections.size,
  };
}

/**
 * Whether the request's connection sent it before the previous answer was
 * written (a pipelining client), on a server of createHttpServer.
 * @param {http.IncomingMessage} req
 */
function isPipelined(req) {
  return req.socket?.[STATE]?.pipelining ?? false;
}

// Node's own pause protocol for a pipelining client (_http_server.js): the
// flag tells it the parser is paused, so it resumes both together.
function pause(socket) {
  if (socket._paused) return;
  socket._paused = true;
  // Bun's sockets carry a parser without pause and resume.
  if (typeof socket.parser?.pause === 'function') socket.parser.pause();
  socket.pause();
}

function resume(socket) {
  // Node still waits for the client to read what was written: its 'drain'
  // handler resumes the socket then.
  if (!socket._paused || socket.writableNeedDrain) return;
  socket._paused = false;
  if (typeof socket.parser?.resume === 'function') socket.parser.resume();
  socket.resume();
}

module.exports = { createHttpServer, isPipelined, HTTP_LIMITS: LIMITS };
