'use strict';

// tier-bench as a library: a configuration's tiers, loaded and started the
// way the benchmark does (a test can use the same servers).
const { loadConfig, tierOf, READY_LINE } = require('./lib/tier-config');
const { startTier, startServer, tierCommand } = require('./lib/launch');

/** Returns `config` as it is; in an editor, it types the configuration file. */
const defineConfig = (config) => config;

module.exports = { defineConfig, loadConfig, tierOf, startTier, startServer, tierCommand, READY_LINE };
