#!/usr/bin/env node
'use strict';

// Builds every Rust artifact of {{name}}: the CLI (cargo), the napi addon
// (@napi-rs/cli, which also writes napi/index.js and index.d.ts) and the Wasm
// package (wasm-pack, into wasm/pkg). The repository's scripts/setup.sh
// installs the tools.
const { execFileSync } = require('node:child_process');
const path = require('node:path');

const HERE = __dirname;
const ROOT = path.resolve(HERE, '../..');
const run = (command, args, cwd = HERE) => {
  console.error(`build: ${command} ${args.join(' ')}`);
  execFileSync(command, args, { cwd, stdio: 'inherit' });
};

run('cargo', ['build', '--release', '-p', '{{snake}}_cli']);
run(path.join(ROOT, 'node_modules/.bin/napi'), ['build', '--platform', '--release'], path.join(HERE, 'napi'));
run('wasm-pack', ['--log-level', 'warn', 'build', 'wasm', '--release', '--target', 'nodejs', '--out-dir', 'pkg']);
