#!/usr/bin/env node
'use strict';

// The WASI addon package's runtime dependencies (qr_napi/npm/wasm32-wasi's,
// and theirs) at the versions package-lock.json holds, as npm `overrides`.
// scripts/package.sh warms npm's cache with an install of dist/'s WASI
// tarball under them, and test/artifacts/package.test.js installs it offline
// under the same: neither takes whatever the package's ranges resolve to
// that day.
//
//   node scripts/wasi-runtime-pins.js   prints the overrides as JSON
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const read = (file) => JSON.parse(fs.readFileSync(path.join(ROOT, file), 'utf8'));

/** name -> version for every package the WASI package needs, from the lockfile. */
function wasiRuntimePins(lock = read('package-lock.json'), manifest = read('qr_napi/npm/wasm32-wasi/package.json')) {
  const pins = {};
  const queue = Object.keys(manifest.dependencies ?? {});
  while (queue.length) {
    const name = queue.shift();
    if (pins[name]) continue;
    const entry = lock.packages[`node_modules/${name}`];
    if (!entry) throw new Error(`wasi-runtime-pins: ${name} is not in package-lock.json`);
    pins[name] = entry.version;
    queue.push(...Object.keys({ ...entry.dependencies, ...entry.peerDependencies }));
  }
  return pins;
}

if (require.main === module) process.stdout.write(`${JSON.stringify(wasiRuntimePins())}\n`);

module.exports = { wasiRuntimePins };
