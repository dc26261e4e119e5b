'use strict';

// Bun and Deno as scripts/setup-runtimes.sh installs them (scripts/runtime-versions),
// and the runtime the servers under test run on: QR_TEST_RUNTIME=bun or deno, else this Node.
const path = require('node:path');
const { pinnedRuntimes, runtimeArgs } = require('../../bench/lib/runtimes');

const ROOT = path.resolve(__dirname, '../..');

/** { name, version, bin, installed } for each pinned runtime. */
const RUNTIMES = pinnedRuntimes(ROOT);

/** The arguments that run a script file: Deno needs `run` and its permissions. */
function scriptArgs(runtime, script, ...args) {
  return [...runtimeArgs(runtime), script, ...args];
}

// The tiers a runtime cannot serve, each with that runtime's own error and
// its upstream issue (docs/runtimes.md). Every tier serves on the pinned Bun
// and Deno; a tier found failing there is listed here, not hidden.
const UNSUPPORTED = { bun: {}, deno: {} };

function serverRuntime() {
  const name = process.env.QR_TEST_RUNTIME;
  if (!name || name === 'node') return null;
  const runtime = RUNTIMES.find((r) => r.name === name);
  if (!runtime) throw new Error(`QR_TEST_RUNTIME=${name}: one of node, ${RUNTIMES.map((r) => r.name).join(', ')}`);
  if (!runtime.installed) throw new Error(`QR_TEST_RUNTIME=${name}: no ${runtime.bin}; run scripts/setup-runtimes.sh`);
  return runtime;
}

/**
 * Where the servers run on Bun or Deno: launch.js's `node` and `nodeArgs` for
 * them; on Node, the flags QR_TEST_NODE_ARGS gives (`--max-semi-space-size=4`).
 */
function serverLaunchOptions() {
  const runtime = serverRuntime();
  const nodeArgs = (process.env.QR_TEST_NODE_ARGS ?? '').split(' ').filter(Boolean);
  if (!runtime) return nodeArgs.length ? { nodeArgs } : {};
  if (nodeArgs.length) throw new Error(`QR_TEST_NODE_ARGS is for Node: not with QR_TEST_RUNTIME=${runtime.name}`);
  return { node: runtime.bin, nodeArgs: runtimeArgs(runtime) };
}

/** Why the servers' runtime cannot serve `tier`, or null. */
function unsupportedReason(tier) {
  const runtime = serverRuntime();
  if (runtime) {
    const reason = UNSUPPORTED[runtime.name][tier.name];
    return reason && `${runtime.name} ${runtime.version}: ${reason}`;
  }
  // This Node: a tier's `needs` (node:ffi from Node 26 on).
  const lacks = tier.needs && !require('node:module').isBuiltin(tier.needs);
  return lacks ? `Node ${process.version} has no ${tier.needs}` : null;
}

module.exports = { RUNTIMES, scriptArgs, serverLaunchOptions, unsupportedReason, UNSUPPORTED };
