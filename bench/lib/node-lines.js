'use strict';

// The Node binaries the benchmark can run servers on: the supported lines
// pinned in scripts/node-versions of the directory it runs from (this
// repository's scripts/setup.sh unpacks each into target/node/VERSION),
// .nvmrc's line first, or any node executable by path.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const VERSIONS_FILE = 'scripts/node-versions';

const binaryOf = (version) => path.resolve('target/node', version, 'bin/node');

/** Every pinned version, .nvmrc's first; [] where there is no such file. */
function supportedVersions() {
  if (!fs.existsSync(VERSIONS_FILE) || !fs.existsSync('.nvmrc')) return [];
  const versions = fs
    .readFileSync(VERSIONS_FILE, 'utf8')
    .split('\n')
    .filter((line) => line.trim() && !line.startsWith('#'))
    .map((line) => line.split(/\s+/)[0]);
  const pinned = fs.readFileSync('.nvmrc', 'utf8').trim();
  return [pinned, ...versions.filter((v) => v !== pinned)];
}

/**
 * A node executable from a line ("22"), a pinned version ("22.23.3") or a
 * path; throws naming the choices when none fits.
 */
function nodeBinary(spec) {
  if (spec.includes('/')) {
    if (!fs.existsSync(spec)) throw new Error(`--node ${spec}: no such file`);
    return path.resolve(spec);
  }
  const versions = supportedVersions();
  const version = versions.find((v) => v === spec || v.split('.')[0] === spec.replace(/^v/, ''));
  if (!version) throw new Error(`--node ${spec}: not a supported line (${versions.join(', ')}) nor a path`);
  if (!fs.existsSync(binaryOf(version)))
    throw new Error(`--node ${spec}: ${binaryOf(version)} is missing (scripts/setup.sh installs it)`);
  return binaryOf(version);
}

/** The installed pinned binaries other than `except` (a path). */
function otherInstalledLines(except) {
  return supportedVersions()
    .map(binaryOf)
    .filter((exe) => fs.existsSync(exe) && fs.realpathSync(exe) !== fs.realpathSync(except));
}

/** What a node executable is: its version and its V8's. */
function describeNode(exe) {
  const out = execFileSync(exe, ['-p', 'JSON.stringify({ node: process.version, v8: process.versions.v8 })'], {
    encoding: 'utf8',
  });
  return { path: exe, ...JSON.parse(out) };
}

module.exports = { supportedVersions, nodeBinary, otherInstalledLines, describeNode };
