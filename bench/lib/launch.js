'use strict';

// Starts the real servers of a benchmark configuration's tiers on free
// loopback ports and stops them again. Shared by the benchmark and tests.
const path = require('node:path');
const { spawnListening } = require('tier-adapters/server');
const { loadConfig, tierOf, READY_LINE } = require('./tier-config');

const OUTPUT_KEPT = 4 << 20;

/**
 * The command that starts a tier's server, from the configuration (default:
 * bench.config.js in the current directory), plus `args`; `node` is the node executable for servers
 * that run on Node (default: this one), `nodeArgs` Node's own flags for them,
 * put right after the executable where the command starts with it; `cpus`
 * (e.g. "1-3") pins it and every process it starts.
 * @param {string} tier
 * @param {{ workers?: number, args?: string[], cpus?: string, env?: NodeJS.ProcessEnv, node?: string,
 *   nodeArgs?: string[], config?: import('./tier-config').BenchConfig }} [options]
 * @returns {[string, string[]]}
 */
function tierCommand(
  tier,
  { workers = 1, args = [], cpus, env, node = process.execPath, nodeArgs = [], config = loadConfig() } = {},
) {
  const command = [...tierOf(config, tier).command({ workers, env, node }), ...args];
  if (nodeArgs.length && command[0] === node) command.splice(1, 0, ...nodeArgs);
  if (cpus) command.unshift('taskset', '-c', cpus);
  return [command[0], command.slice(1)];
}

/**
 * Spawns a server and resolves once it prints its URL; its stdout and stderr
 * are kept for the caller (and shown if it fails to start).
 * @param {string} command
 * @param {string[]} args
 * @param {{ env?: NodeJS.ProcessEnv, timeoutMs?: number, ready?: RegExp }} [options]
 * @returns {Promise<{ url: string, child: import('node:child_process').ChildProcess,
 *   stop: () => Promise<number|string|null>, output: () => string }>}
 */
async function startServer(command, args, { env, timeoutMs = 20_000, ready = READY_LINE } = {}) {
  let output = '';
  const name = `${path.basename(command)} ${args.join(' ')}`;
  let started;
  try {
    // In this process's group: a Ctrl-C of the benchmark or a test run stops its servers too.
    // Kept to show and to search, bounded: a server with its access log on
    // writes a line per request.
    const onOutput = (text) => {
      output += text;
      if (output.length > OUTPUT_KEPT) output = output.slice(-OUTPUT_KEPT / 2);
    };
    started = await spawnListening(command, args, {
      name,
      env: env ?? {},
      readyLine: ready,
      timeoutMs,
      onOutput,
      detached: false,
    });
  } catch (err) {
    throw new Error(`${err.message}:\n${output}`, { cause: err });
  }
  const { child, url } = started;
  const exited =
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve(child.exitCode ?? child.signalCode)
      : new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    return exited;
  };
  return { url, child, stop, output: () => output };
}

/**
 * Starts a tier of `options.config` (default: bench.config.js in the current directory).
 * @param {string} tier
 * @param {Parameters<typeof tierCommand>[1] & { timeoutMs?: number }} [options]
 */
function startTier(tier, options = {}) {
  const config = options.config ?? loadConfig();
  const [command, args] = tierCommand(tier, { ...options, config });
  return startServer(command, args, { ...options, ready: tierOf(config, tier).ready ?? READY_LINE });
}

module.exports = { startTier, startServer, tierCommand };
