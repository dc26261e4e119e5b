'use strict';

// Answers what Node's HTTP parser leaves to the application: over-long
// request targets (414), heads it cannot parse (400/408/414/431, answered
// and drained rather than reset) and CONNECT.
const MAX_REQUEST_TARGET_BYTES = 8192;
const URI_TOO_LONG = `uri too long (limit ${MAX_REQUEST_TARGET_BYTES} bytes)`;
// How long an answered connection keeps draining what the client still sends.
const LINGER_MS = 2000;
// How long a head past 16 KiB waits, unread, for its answer (431 or 414): a
// client that waits for its answers gets at most ten a second per
// connection it keeps open. At Node's own pace (9,000 a second from ten
// connections) the churn grew V8's young generation by 80-95 MB. A client
// that does not wait is a connection storm, which nothing in JavaScript
// bounds (docs/operations.md).
const OVERFLOW_PAUSE_MS = 100;
const answered = new WeakSet();

// Bytes the request target may hold: those of the `http` crate that hyper
// parses targets with (uri/path.rs), so a Node server and a hyper one agree. Node's
// own parser already refuses controls, spaces and bytes past 0x7F; these
// refuse the printable ones hyper refuses too: `<`, `>` and a backquote in the
// path, `"`, `<` and `>` in the query. A `#` ends both.
const INVALID_IN_PATH = /[<>`]/;
const INVALID_IN_QUERY = /["<>]/;

/** A request target (as Node gives it) hyper would refuse to parse. */
function isInvalidTarget(url) {
  const target = url.split('#', 1)[0];
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  return INVALID_IN_PATH.test(path) || (q !== -1 && INVALID_IN_QUERY.test(target.slice(q + 1)));
}

/** express middleware: 414 for a target longer than the limit. */
function refuseLongUris(req, res, next) {
  // Node gives the target as latin1, one char per byte.
  if (req.url.length <= MAX_REQUEST_TARGET_BYTES) return next();
  res.status(414).type('text/plain; charset=utf-8').set('Connection', 'close').send(URI_TOO_LONG);
}

/**
 * `clientError` handler: Node's parser stops at 16 KiB of head (431) before
 * express sees the request; when it is the request line that overflowed, say
 * 414 like the middleware. Other parse errors get Node's own answers.
 * `afterAnswers(write)` runs `write` once the requests the connection sent
 * before the one that failed are answered (createHttpServer's; at once
 * without it): the refusal comes after their answers, as hyper's does, and
 * is dropped if the last of them closes the connection. A 408 is not held.
 * @param {NodeJS.ErrnoException & { rawPacket?: Buffer }} err
 * @param {import('node:stream').Duplex & { _httpMessage?: unknown }} socket
 * @param {(write: () => void) => void} [afterAnswers]
 */
function answerClientError(err, socket, afterAnswers = (write) => write()) {
  // The parser fails again on every later chunk. Keep reading them: closing
  // with unread input sends a RST, which can erase our answer before the
  // client reads it (RFC 9112 section 9.6, nginx's lingering close).
  if (answered.has(socket)) return release(err.rawPacket);
  if (err.code === 'ECONNRESET' || !socket.writable) return socket.destroy();
  let status = 400;
  let body = '';
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    // rawPacket is the chunk that overflowed: a request line that long has no
    // line break near the start of it.
    const newline = err.rawPacket?.indexOf(10) ?? -1;
    const firstLine = newline === -1 ? (err.rawPacket?.length ?? 0) : newline;
    [status, body] = firstLine > MAX_REQUEST_TARGET_BYTES ? [414, URI_TOO_LONG] : [431, ''];
  } else if (err.code === 'HPE_HEADERS_TIMEOUT' || err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    status = 408;
  }
  release(err.rawPacket);
  answered.add(socket);
  // Like hyper's own answers to a request it cannot parse: no body, no type.
  const type = body ? 'Content-Type: text/plain; charset=utf-8\r\n' : '';
  const answer =
    `HTTP/1.1 ${status} ${REASONS[status]}\r\nConnection: close\r\n${type}` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const overflow = err.code === 'HPE_HEADER_OVERFLOW';
  // A timeout is answered at once: the client is too slow to wait for.
  const timedOut = status === 408;
  (timedOut ? (write) => write() : afterAnswers)(() => {
    if (!socket.writable) return;
    // A client that never stops sending is cut off after the grace period.
    const linger = setTimeout(() => socket.destroy(), LINGER_MS).unref();
    socket.once('close', () => clearTimeout(linger));
    // Only an overflow is paused: other refusals cost a short read. Not while
    // an earlier request's answer is being written (it would land after ours),
    // nor on Bun, which closes a socket its clientError handler leaves unwritten.
    if (!overflow || socket._httpMessage || process.versions.bun) return socket.end(answer);
    socket.pause();
    const pause = setTimeout(() => {
      if (!socket.writable) return;
      socket.resume();
      socket.end(answer);
    }, OVERFLOW_PAUSE_MS).unref();
    socket.once('close', () => clearTimeout(pause));
  });
}

const REASONS = {
  400: 'Bad Request',
  408: 'Request Timeout',
  414: 'URI Too Long',
  431: 'Request Header Fields Too Large',
};

/**
 * Frees at once the copy Node makes of the read that failed to parse (up to
 * 64 KiB, `rawPacket`), rather than when the garbage collector gets to it:
 * a client opening connection after connection with an over-long head (a
 * 1 MiB header, 10,000 small ones) made it hold some 70 MB of such copies.
 * Detaching an ArrayBuffer drops its memory; only a copy of its own is.
 */
function release(raw) {
  if (!raw?.buffer || raw.byteOffset !== 0 || raw.byteLength !== raw.buffer.byteLength) return;
  if (typeof raw.buffer.transfer === 'function' && !raw.buffer.detached) raw.buffer.transfer(0);
}

/**
 * `connect` handler: a CONNECT request is no proxy request here; 400 as
 * hyper answers it (Node would otherwise close the socket unanswered).
 */
function refuseConnect(_req, socket) {
  socket.on('error', () => {});
  socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  const linger = setTimeout(() => socket.destroy(), LINGER_MS).unref();
  socket.once('close', () => clearTimeout(linger));
}

module.exports = {
  refuseLongUris,
  isInvalidTarget,
  refuseConnect,
  answerClientError,
  LINGER_MS,
  MAX_REQUEST_TARGET_BYTES,
  URI_TOO_LONG,
};
