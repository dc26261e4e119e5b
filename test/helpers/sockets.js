'use strict';

const fs = require('node:fs');
const net = require('node:net');

const ESTABLISHED = '01';

/** Every TCP socket of this machine (Linux /proc/net/tcp{,6}): local port, state, unread bytes. */
function* tcpSockets() {
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text;
    try {
      text = fs.readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue ...
      const [, local, , state, queues] = line.trim().split(/\s+/);
      if (!local) continue;
      yield { port: parseInt(local.split(':')[1], 16), state, unread: parseInt(queues.split(':')[1], 16) };
    }
  }
}

/**
 * How many established TCP sockets with local port `port` hold bytes the
 * process has not read yet: a server's accepted connections with a request
 * waiting in the kernel.
 */
function socketsWithUnreadBytes(port) {
  let count = 0;
  for (const s of tcpSockets()) if (s.state === ESTABLISHED && s.port === port && s.unread > 0) count++;
  return count;
}

/**
 * How many established TCP sockets have local port `port`: a server's open
 * connections, seen from the kernel, whether or not their clients notice a close.
 */
function establishedOnPort(port) {
  let count = 0;
  for (const s of tcpSockets()) if (s.state === ESTABLISHED && s.port === port) count++;
  return count;
}

/** Opens a raw connection; `response` resolves with all it read once closed. */
function connect(url, { allowHalfOpen = false } = {}) {
  const { hostname, port } = new URL(url);
  const socket = net.connect({ host: hostname, port: Number(port), allowHalfOpen });
  const chunks = [];
  socket.on('data', (c) => chunks.push(c));
  socket.on('error', () => {}); // a reset shows as the close below
  const closed = new Promise((resolve) => socket.on('close', () => resolve(Buffer.concat(chunks))));
  const connected = new Promise((resolve) => socket.once('connect', resolve));
  return { socket, chunks, closed, connected };
}

module.exports = { connect, socketsWithUnreadBytes, establishedOnPort };
