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

const freeze = (root) => signalTree(root, 'SIGSTOP');
const thaw = (root) => signalTree(root, 'SIGCONT');

/** Whether every process of the tree is stopped (state T in /proc/PID/stat). */
function isFrozen(root) {
  return treePids(root).every((pid) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'T';
    } catch {
      return true;
    }
  });
}

module.exports = { freeze, thaw, isFrozen };
