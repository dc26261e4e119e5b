#!/usr/bin/env node
'use strict';

// Builds every Rust artifact of ladder-example: the CLI and the C-ABI library of
// the ffi crate (cargo, into target/release), the napi addon
// (@napi-rs/cli, which also writes napi/index.js and index.d.ts) and the Wasm
// package (wasm-pack, into wasm/pkg). Needs a Rust toolchain with the
// wasm32-unknown-unknown target, and wasm-pack, on PATH (README.md).
const { execFileSync, spawnSync } = require('node:child_process');
const path = require('node:path');

const HERE = __dirname;
const NEEDED = {
  cargo: 'a Rust toolchain: https://rustup.rs',
  'wasm-pack': 'wasm-pack: cargo install wasm-pack',
};
for (const [tool, what] of Object.entries(NEEDED)) {
  if (spawnSync(tool, ['--version']).error) {
    console.error(`build: ${tool} is not on PATH; install ${what}`);
    process.exit(1);
  }
}
const napiCli = path.join(path.dirname(require.resolve('@napi-rs/cli/package.json', { paths: [HERE] })), 'dist/cli.js');

const run = (command, args, cwd = HERE) => {
  console.error(`build: ${path.basename(command)} ${args.join(' ')}`);
  execFileSync(command, args, { cwd, stdio: 'inherit' });
};

run('cargo', ['build', '--release', '-p', 'ladder_example_cli', '-p', 'ladder_example_ffi']);
run(process.execPath, [napiCli, 'build', '--platform', '--release'], path.join(HERE, 'napi'));
run('wasm-pack', ['--log-level', 'warn', 'build', 'wasm', '--release', '--target', 'nodejs', '--out-dir', 'pkg']);
