#!/usr/bin/env node
'use strict';

// The npm dependency policy, checked offline from package-lock.json: the
// production tree (what `npm ci --omit=dev` installs for the workspaces:
// node-server, tier-adapters, the addon's loader, tier-bench) holds only
// the packages of scripts/npm-production-allow.txt, each under a license
// of ALLOWED_LICENSES, each with the registry's sha512 integrity (which
// `npm ci` checks the download against; a package from a git URL or a
// tarball path has none and fails here); the project's .npmrc names the npm
// registry as the source, and no package of the whole lockfile, dev ones
// included, is resolved from anywhere else (a lockfile written with
// `omit-lockfile-registry-resolved` has no `resolved` for the registry's
// packages; a URL elsewhere would be fetched from there). A package new to the production tree fails the check
// until someone reviews it and adds its line (`--write` rewrites the list
// from the lockfile, for that review's diff).
//
//   node scripts/npm-policy.js [--write]
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const ALLOW_LIST = path.join(__dirname, 'npm-production-allow.txt');
const ALLOWED_LICENSES = new Set([
  'MIT',
  'ISC',
  'Apache-2.0',
  'BSD-2-Clause',
  'BSD-3-Clause',
  '0BSD',
  '(MIT AND Zlib)',
]);

/** name -> { version, license, resolved, integrity } of every production package in the lockfile. */
function productionTree(lock = readLock()) {
  const tree = new Map();
  for (const [where, entry] of Object.entries(lock.packages)) {
    // The root, the workspaces' own folders and their links are this repository.
    if (!where.startsWith('node_modules/') && !where.includes('/node_modules/')) continue;
    if (entry.dev || entry.link) continue;
    const name = entry.name ?? where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length);
    tree.set(`${name}@${entry.version}`, { name, ...entry });
  }
  return tree;
}

/** The reasons the tree breaks the policy, one line each. */
function violations(tree, allowed) {
  const out = [];
  for (const [id, entry] of tree) {
    if (!allowed.has(entry.name)) out.push(`${id}: not in scripts/npm-production-allow.txt`);
    if (!ALLOWED_LICENSES.has(entry.license))
      out.push(`${id}: license ${JSON.stringify(entry.license)} is not allowed`);
    if (!/^sha512-/.test(entry.integrity ?? '')) out.push(`${id}: no sha512 integrity`);
  }
  const present = new Set([...tree.values()].map((e) => e.name));
  for (const name of allowed)
    if (!present.has(name)) out.push(`${name}: allowed but no longer in the production tree (remove its line)`);
  return out;
}

const REGISTRY = 'https://registry.npmjs.org/';

/** Packages of the lockfile, dev ones too, whose `resolved` points past the npm registry. */
function foreignSources(lock = readLock()) {
  const out = [];
  for (const [where, entry] of Object.entries(lock.packages)) {
    if (!where.includes('node_modules/') || entry.link || entry.resolved === undefined) continue;
    if (!entry.resolved.startsWith(REGISTRY)) out.push(`${where}: resolved from ${entry.resolved}, not ${REGISTRY}`);
  }
  return out;
}

/** What the project's .npmrc says about the registry: nothing if it names the npm registry. */
function registryProblems(npmrc = fs.readFileSync(path.join(ROOT, '.npmrc'), 'utf8')) {
  const lines = npmrc
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => /^(@[^:]+:)?registry\s*=/.test(l));
  if (lines.length === 0) return [`.npmrc: no registry=${REGISTRY}`];
  return lines
    .filter((l) => l.replace(/\s/g, '') !== `registry=${REGISTRY}`)
    .map((l) => `.npmrc: ${l}, not ${REGISTRY}`);
}

function readLock() {
  return JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));
}

function readAllowList() {
  return new Set(
    fs
      .readFileSync(ALLOW_LIST, 'utf8')
      .split('\n')
      .map((l) => l.replace(/#.*/, '').trim())
      .filter(Boolean),
  );
}

if (require.main === module) {
  const tree = productionTree();
  if (process.argv.includes('--write')) {
    const names = [...new Set([...tree.values()].map((e) => e.name))].sort();
    const head = '# npm packages allowed in the production tree (scripts/npm-policy.js): one name a line.\n';
    fs.writeFileSync(ALLOW_LIST, `${head}${names.join('\n')}\n`);
    console.log(`npm-policy: ${names.length} names written to ${path.relative(ROOT, ALLOW_LIST)}`);
  } else {
    const problems = [...violations(tree, readAllowList()), ...foreignSources(), ...registryProblems()];
    for (const p of problems) console.error(`npm-policy: ${p}`);
    if (problems.length) process.exitCode = 1;
    else console.log(`npm-policy: ${tree.size} production packages, all allowed`);
  }
}

module.exports = { productionTree, violations, foreignSources, registryProblems, readAllowList, ALLOWED_LICENSES };
