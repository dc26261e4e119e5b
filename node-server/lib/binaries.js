'use strict';

const fs = require('node:fs');
const path = require('node:path');

const RELEASE_DIR = path.resolve(__dirname, '../../target/release');

/**
 * Path of a workspace binary: `$QR_CLI_BIN` / `$QR_SERVER_BIN`, or the release
 * build. Throws one clear line when it is not there.
 */
function binaryPath(name) {
  const envName = `${name.toUpperCase()}_BIN`;
  const file = process.env[envName] || path.join(RELEASE_DIR, name);
  try {
    fs.accessSync(file, fs.constants.X_OK);
  } catch {
    throw new Error(`${name} not found at ${file}: run \`cargo build --release -p ${name}\` or set ${envName}`);
  }
  return file;
}

module.exports = { binaryPath };
