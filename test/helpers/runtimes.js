'use strict';

// Bun and Deno as scripts/setup-runtimes.sh installs them (scripts/runtime-versions).
const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('./servers');

const PINS = fs.readFileSync(path.join(ROOT, 'scripts/runtime-versions'), 'utf8').split('\n')
  .filter((line) => line.trim() && !line.startsWith('#'))
  .map((line) => line.trim().split(/\s+/));

/** { name, version, bin, installed } for each pinned runtime. */
const RUNTIMES = PINS.map(([name, , version]) => {
  const bin = path.join(ROOT, 'target', name, version, 'bin', name);
  return { name, version, bin, installed: fs.existsSync(bin) };
});

/** The arguments that run a script file: Deno needs `run` and its permissions. */
function scriptArgs(runtime, script, ...args) {
  return runtime.name === 'deno' ? ['run', '--allow-all', script, ...args] : [script, ...args];
}

module.exports = { RUNTIMES, scriptArgs };
