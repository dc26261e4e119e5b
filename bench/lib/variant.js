'use strict';

/**
 * A configuration's tier started with extra arguments, under a name of its
 * own: the same server with one switch flipped, to measure what it costs.
 * @param {import('./tier-config').BenchConfig} config
 */
function variant(config, tierName, name, ...args) {
  const base = tierToVary(config, tierName);
  return { ...base, name, command: (options) => [...base.command(options), ...args] };
}

/**
 * The same, with Node's own flags (`--max-semi-space-size=4`) right after its
 * executable; throws for a tier whose command does not start with it, and for
 * a launcher, whose servers would not get them.
 * @param {import('./tier-config').BenchConfig} config
 */
function runtimeFlagsVariant(config, tierName, name, ...flags) {
  const base = tierToVary(config, tierName);
  if (base.launcher) throw new Error(`tier "${tierName}" is a launcher: its servers would not get ${flags.join(' ')}`);
  return {
    ...base,
    name,
    command: (options) => {
      const [exe, ...rest] = base.command(options);
      if (exe !== options.node) throw new Error(`tier "${tierName}" does not start with the runtime: no flags for it`);
      return [exe, ...flags, ...rest];
    },
  };
}

function tierToVary(config, tierName) {
  const base = config.tiers.find((t) => t.name === tierName);
  if (!base) throw new Error(`no tier "${tierName}" to vary`);
  return base;
}

module.exports = { variant, runtimeFlagsVariant };
