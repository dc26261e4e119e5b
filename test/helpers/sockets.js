'use strict';

const fs = require('node:fs');

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

module.exports = { socketsWithUnreadBytes, establishedOnPort };
