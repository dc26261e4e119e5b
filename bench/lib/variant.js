'use strict';

/**
 * A configuration's tier started with extra arguments, under a name of its
 * own: the same server with one switch flipped, to measure what it costs.
 * @param {import('./tier-config').BenchConfig} config
 */
function variant(config, tierName, name, ...args) {
  const base = config.tiers.find((t) => t.name === tierName);
  if (!base) throw new Error(`no tier "${tierName}" to vary`);
  return { ...base, name, command: (options) => [...base.command(options), ...args] };
}

module.exports = { variant };
