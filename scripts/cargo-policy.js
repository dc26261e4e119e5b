#!/usr/bin/env node
'use strict';

// The Cargo dependency policy, checked offline from the workspace's
// Cargo.lock (`cargo metadata --locked --offline`, the packages built for
// this host: the Windows-only ones the lock also lists are never downloaded
// here; for the shipped targets, x86_64 and aarch64 Linux, musl and wasm32,
// the set is the same 138 packages today), what `cargo deny check sources licenses bans` would check, without
// a tool to install: every
// package not of this workspace comes from crates.io (no git or other
// registry) with the lock's checksum (cargo checks each download against
// it), under a license expression that ALLOWED_LICENSES satisfies, and none
// is BANNED.
//
//   node scripts/cargo-policy.js
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const CRATES_IO = 'registry+https://github.com/rust-lang/crates.io-index';
const ALLOWED_LICENSES = new Set([
  'MIT',
  'Apache-2.0',
  'Apache-2.0 WITH LLVM-exception',
  'BSD-2-Clause',
  'BSD-3-Clause',
  'ISC',
  'Zlib',
  '0BSD',
  'Unicode-3.0',
  'BSL-1.0',
  'Unlicense',
  'CC0-1.0',
]);
// The shipped executables are static (musl): a crate that links the system's
// OpenSSL would break them, and they need no TLS.
const BANNED = new Map([
  ['openssl-sys', 'links the system OpenSSL; the shipped executables are static'],
  ['native-tls', 'links the system TLS library; the shipped executables are static'],
]);

/** Whether an SPDX expression (AND, OR, WITH, parentheses; the old `A/B` as OR) is satisfied by `allowed`. */
function satisfies(expression, allowed = ALLOWED_LICENSES) {
  const tokens = expression.replace(/\//g, ' OR ').match(/\(|\)|[^\s()]+/g) ?? [];
  let at = 0;
  const or = () => {
    let ok = and();
    while (tokens[at] === 'OR') {
      at++;
      ok = and() || ok;
    }
    return ok;
  };
  const and = () => {
    let ok = term();
    while (tokens[at] === 'AND') {
      at++;
      ok = term() && ok;
    }
    return ok;
  };
  const term = () => {
    if (tokens[at] === '(') {
      at++;
      const ok = or();
      if (tokens[at++] !== ')') throw new Error(`unbalanced license expression ${JSON.stringify(expression)}`);
      return ok;
    }
    let id = tokens[at++];
    if (tokens[at] === 'WITH') {
      id = `${id} WITH ${tokens[at + 1]}`;
      at += 2;
    }
    return allowed.has(id);
  };
  const ok = or();
  if (at !== tokens.length) throw new Error(`cannot read license expression ${JSON.stringify(expression)}`);
  return ok;
}

/** The workspace's packages from `cargo metadata`, and the lock's checksums by "name version". */
function readWorkspace() {
  const host = /^host: (\S+)$/m.exec(execFileSync('rustc', ['-vV'], { encoding: 'utf8' }))[1];
  const args = ['metadata', '--locked', '--offline', '--format-version', '1', '--filter-platform', host];
  const metadata = JSON.parse(execFileSync('cargo', args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20 }));
  const checksums = new Map();
  for (const block of fs.readFileSync(path.join(ROOT, 'Cargo.lock'), 'utf8').split('[[package]]')) {
    const field = (key) => new RegExp(`^${key} = "([^"]*)"`, 'm').exec(block)?.[1];
    if (field('checksum')) checksums.set(`${field('name')} ${field('version')}`, field('checksum'));
  }
  return { metadata, checksums };
}

/** The reasons the dependencies break the policy, one line each. */
function violations({ metadata, checksums }) {
  const ours = new Set(metadata.workspace_members);
  const out = [];
  for (const p of metadata.packages) {
    if (ours.has(p.id)) continue;
    const id = `${p.name}@${p.version}`;
    if (p.source !== CRATES_IO) out.push(`${id}: from ${p.source ?? 'a path'}, not crates.io`);
    if (!checksums.has(`${p.name} ${p.version}`)) out.push(`${id}: no checksum in Cargo.lock`);
    if (!p.license || !satisfies(p.license)) out.push(`${id}: license ${JSON.stringify(p.license)} is not allowed`);
    if (BANNED.has(p.name)) out.push(`${id}: banned (${BANNED.get(p.name)})`);
  }
  return out;
}

if (require.main === module) {
  const workspace = readWorkspace();
  const problems = violations(workspace);
  for (const p of problems) console.error(`cargo-policy: ${p}`);
  const dependencyCount = workspace.metadata.packages.length - workspace.metadata.workspace_members.length;
  if (problems.length) process.exitCode = 1;
  else console.log(`cargo-policy: ${dependencyCount} dependencies, all allowed`);
}

module.exports = { satisfies, readWorkspace, violations, ALLOWED_LICENSES, CRATES_IO };
