'use strict';

// What the benchmark measures: a configuration file (bench.config.js in the
// current directory by default) lists the service's tiers and the request mix.
const path = require('node:path');

const DEFAULT_CONFIG = 'bench.config.js';
// The URL ends at white space or a quote: the line may be a JSON log line.
const READY_LINE = /listening on (http:\/\/[^\s"]+)/;

/**
 * @typedef {object} BenchTier
 * @property {string} name
 * @property {(options: { workers: number, env?: object, node: string }) => string[]} command
 *   the server's command line; it must listen on a free port and print its URL;
 *   `node` is the node executable to run it with, where it runs on Node (a
 *   line that starts with it gets the benchmark's Node flags right after it)
 * @property {RegExp} [ready] the line with the URL as group 1 (default: `listening on (http://...)`)
 * @property {boolean} [eventLoop] the server answers GET /metrics/event-loop
 *   (per-worker event-loop delay; see event-loop.js)
 * @property {boolean} [launcher] the started process only launches the servers: left out of the figures
 * @property {string} [reference] a benchmark-only row; what it is
 * @property {boolean} [singleProcess] takes no worker count: measured at the first worker count only
 * @property {string} [group] the report groups tiers by this (a rung of the ladder)
 *
 * @typedef {object} BenchConfig
 * @property {string} title
 * @property {string} [baseline] the anchor: the tier every ratio is read against, within
 *   each interleaved round, and whose maximum sets the common fixed rates
 * @property {string[]} [crossLine] tiers also measured on every other supported Node line
 * @property {string[]} [crossRuntime] tiers also measured on Bun and Deno (scripts/runtime-versions)
 * @property {{ framework: string, bare: string, what: string }} [frameworkCost] two tiers
 *   making the same call behind the service's framework and behind a bare server
 * @property {{ tier: string, against: string, what: string }[]} [pairs] two tiers each
 *   that differ in one thing (`what`): the CPU and req/s of `tier` over `against`'s,
 *   per round
 * @property {{ workers?: string, body?: string }} [notes] the report's words for what
 *   `--workers` counts and what a response body is
 * @property {BenchTier[]} tiers
 * @property {string[]} [soakTiers]
 * @property {string} [prediction] tier-bench-profile's profile.json (relative to this file): where it
 *   exists, the report shows each tier's predicted range beside its ratios
 * @property {{ description: string, paths: string[], lengths?: number[],
 *   ofLength?: (bytes: number) => string[] }} requests
 *   GET paths in rotation; `ofLength` gives paths whose input is `bytes` long,
 *   for each of `lengths` (the cost-against-input-size curve)
 */

/**
 * @typedef {BenchConfig & { file: string }} LoadedConfig a configuration with the absolute path of its file
 */

/** @returns {LoadedConfig} */
function loadConfig(file = DEFAULT_CONFIG) {
  let config;
  try {
    config = require(path.resolve(file));
  } catch (err) {
    if (err.code === 'MODULE_NOT_FOUND' && err.message.includes(path.resolve(file)))
      throw new Error(`${file}: no such configuration (--config FILE)`);
    throw err;
  }
  const problems = [];
  if (!Array.isArray(config.tiers) || !config.tiers.length) problems.push('"tiers" must list at least one tier');
  for (const tier of config.tiers ?? []) {
    if (typeof tier.name !== 'string' || typeof tier.command !== 'function')
      problems.push(`tier ${JSON.stringify(tier.name)} needs a name and a command function`);
  }
  if (!Array.isArray(config.requests?.paths) || !config.requests.paths.length)
    problems.push('"requests.paths" must list at least one path');
  if (config.baseline && !config.tiers?.some((t) => t.name === config.baseline))
    problems.push(`baseline "${config.baseline}" is not a tier`);
  for (const key of ['crossLine', 'crossRuntime']) {
    for (const name of config[key] ?? [])
      if (!config.tiers?.some((t) => t.name === name)) problems.push(`${key} "${name}" is not a tier`);
  }
  if (problems.length) throw new Error(`${file}: ${problems.join('; ')}`);
  return { ...config, file: path.resolve(file) };
}

/** The tier entry, or a clear error naming the choices. */
function tierOf(config, name) {
  const tier = config.tiers.find((t) => t.name === name);
  if (!tier) throw new Error(`unknown tier "${name}" (one of: ${config.tiers.map((t) => t.name).join(', ')})`);
  return tier;
}

module.exports = { loadConfig, tierOf, DEFAULT_CONFIG, READY_LINE };
