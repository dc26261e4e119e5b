'use strict';

// The other JavaScript runtimes the benchmark can run servers on: Bun and
// Deno as pinned in scripts/runtime-versions of the directory it runs from
// (this repository's scripts/setup-runtimes.sh unpacks each into
// target/NAME/VERSION/bin/NAME). Both run a Node server script as it is;
// Deno needs `run` and its permissions before the script.
const fs = require('node:fs');
const path = require('node:path');

const PINS_FILE = 'scripts/runtime-versions';

/** { name, version, bin, installed } for each pinned runtime under `root`; [] where there is no pin file. */
function pinnedRuntimes(root = process.cwd()) {
  const file = path.join(root, PINS_FILE);
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() && !line.startsWith('#'))
    .map((line) => {
      const [name, , version] = line.trim().split(/\s+/);
      const bin = path.join(root, 'target', name, version, 'bin', name);
      return { name, version, bin, installed: fs.existsSync(bin) };
    });
}

/** The arguments that go before a script: Deno needs `run` and its permissions. */
function runtimeArgs(runtime) {
  return runtime.name === 'deno' ? ['run', '--allow-all'] : [];
}

/** The pinned runtimes named in `list` ("bun,deno"), each installed; throws naming the choices. */
function runtimesNamed(list, root) {
  const pinned = pinnedRuntimes(root);
  return list
    .split(',')
    .filter(Boolean)
    .map((name) => {
      const runtime = pinned.find((r) => r.name === name);
      if (!runtime)
        throw new Error(`--runtimes ${name}: not a pinned runtime (${pinned.map((r) => r.name).join(', ') || 'none'})`);
      if (!runtime.installed)
        throw new Error(`--runtimes ${name}: ${runtime.bin} is missing (scripts/setup-runtimes.sh installs it)`);
      return runtime;
    });
}

module.exports = { pinnedRuntimes, runtimeArgs, runtimesNamed };
