'use strict';

// Keeps the servers not being measured off the CPUs: SIGSTOP to every process
// of a server's tree, SIGCONT when its turn comes. A stopped server's timers,
// GC and idle threads then cost the measured one nothing.
const fs = require('node:fs');
const { treePids } = require('./proc-tree');

function signalTree(root, signal) {
  for (const pid of treePids(root)) {
    try {
      process.kill(pid, signal);
    } catch {
      // exited meanwhile
    }
  }
}

/** Whether every process of the tree is stopped (or gone): state T, t, Z or X in /proc/PID/stat. */
function isFrozen(root) {
  return treePids(root).every((pid) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      return 'TtZX'.includes(stat[stat.lastIndexOf(')') + 2]);
    } catch {
      return true;
    }
  });
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Stops the tree and returns once every process is stopped: a signal is
 * delivered asynchronously, and a process still running would take CPU from
 * the next one measured. Gives up waiting after `timeoutMs`.
 */
function freeze(root, { timeoutMs = 1000 } = {}) {
  signalTree(root, 'SIGSTOP');
  const deadline = Date.now() + timeoutMs;
  while (!isFrozen(root) && Date.now() < deadline) Atomics.wait(pause, 0, 0, 1);
}

const thaw = (root) => signalTree(root, 'SIGCONT');

module.exports = { freeze, thaw, isFrozen };
