'use strict';

// The open-file limit. Node raises its soft limit to the hard one at start;
// the connection cap is sized to what that leaves, so that a connection past
// it gets the 503 the cap promises instead of an accept that fails on EMFILE
const fs = require('node:fs');

// Descriptors kept for everything but client connections: an upstream pool
// (256 sockets in createHttpUpstreamTier), child processes' pipes, refusals
// in their linger, and Node's own.
const RESERVE = 320;

/** This process's soft limit on open files (Linux), or Infinity if unknown. */
function openFileLimit(limits = '/proc/self/limits') {
  try {
    const line = fs
      .readFileSync(limits, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = Number(line?.split(/\s{2,}/)[1]);
    return Number.isInteger(soft) ? soft : Infinity;
  } catch {
    return Infinity;
  }
}

/** The connection cap in force: the one asked for, or fewer if the limit leaves room for fewer. */
function connectionCap(requested, openFiles) {
  return Math.min(requested, Math.max(1, openFiles - RESERVE));
}

module.exports = { openFileLimit, connectionCap, RESERVE };
