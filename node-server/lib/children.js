'use strict';

// Child processes that must not outlive node-server, however it exits.
const { spawn } = require('node:child_process');

const owned = new Set();
process.on('exit', () => {
  for (const child of owned) child.kill('SIGKILL');
});

/** `spawn`, plus a SIGKILL for the child if this process exits first. */
function spawnOwned(command, args, options) {
  const child = spawn(command, args, options);
  owned.add(child);
  child.once('exit', () => owned.delete(child));
  return child;
}

module.exports = { spawnOwned };
