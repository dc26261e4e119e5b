'use strict';

// Starts the real servers (node-server for a tier, qr_server for `axum`) on
// free loopback ports and stops them again. Shared by the benchmark and tests.
const { spawn } = require('node:child_process');
const path = require('node:path');
const readline = require('node:readline');

const ROOT = path.resolve(__dirname, '../..');
const READY_LINE = /listening on (http:\/\/\S+)/;
const QR_SERVER_BIN = process.env.QR_SERVER_BIN || path.join(ROOT, 'target/release/qr_server');

// Tiers started through a launcher process that does none of the serving:
// the benchmark leaves it out of the memory and CPU figures.
const LAUNCHER_TIERS = new Set(['axum-nginx']);

/**
 * The command that starts a tier's server: node-server; qr_server alone for
 * `axum`; nginx in front of one qr_server (deploy/start.js) for `axum-nginx`;
 * the addon behind bare node:http for the reference `napi-node-http`.
 */
function tierCommand(tier, { workers = 1, args = [], cpus, env } = {}) {
  let command;
  if (tier === 'axum') command = [env?.QR_SERVER_BIN ?? QR_SERVER_BIN, '--port', '0', ...args];
  else if (tier === 'axum-nginx') command = [process.execPath, path.join(ROOT, 'deploy/start.js'), '--port', '0', '--qr-servers', '1', '--tier', 'none', ...args];
  else if (tier === 'napi-node-http') command = [process.execPath, path.join(ROOT, 'bench/reference/napi-node-http.js'), '--port', '0', ...args];
  else command = [process.execPath, path.join(ROOT, 'node-server/server.js'), '--tier', tier, '--port', '0', '--workers', String(workers), ...args];
  // `cpus` (e.g. "1-3") pins the server and every process it starts.
  if (cpus) command.unshift('taskset', '-c', cpus);
  return [command[0], command.slice(1)];
}

/**
 * Spawns a server and resolves once it prints its URL.
 * @returns {Promise<{ url: string, child: import('node:child_process').ChildProcess, stop: () => Promise<number|null>, output: () => string }>}
 */
function startServer(command, args, { env, timeoutMs = 20_000 } = {}) {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let output = '';
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${path.basename(command)} ${args.join(' ')} did not start:\n${output}`));
    }, timeoutMs);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${path.basename(command)} ${args.join(' ')} exited with ${code}:\n${output}`));
    });
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      output += `${line}\n`;
      const match = READY_LINE.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1], child, stop, output: () => output });
      }
    });
  });
}

function startTier(tier, options) {
  const [command, args] = tierCommand(tier, options);
  return startServer(command, args, options);
}

module.exports = { startTier, startServer, tierCommand, LAUNCHER_TIERS, ROOT, QR_SERVER_BIN };
