'use strict';

// tier-bench as a library: a configuration's tiers, loaded and started the
// way the benchmark does (a test can use the same servers), and the
// boundary calibration (each tier's cost per call for given sizes).
const { loadConfig, tierOf, READY_LINE } = require('./lib/tier-config');
const { startTier, startServer, tierCommand } = require('./lib/launch');
const { calibrate } = require('./lib/calibrate');

/** Returns `config` as it is; in an editor, it types the configuration file. */
const defineConfig = (config) => config;

module.exports = { defineConfig, loadConfig, tierOf, startTier, startServer, tierCommand, READY_LINE, calibrate };
