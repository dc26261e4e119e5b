'use strict';

// The benchmark's launcher bound to the QR service's configuration.
const path = require('node:path');
const launch = require('../../bench/lib/launch');
const { loadConfig } = require('../../bench/lib/tier-config');
const { serverLaunchOptions } = require('./runtimes');

const ROOT = path.resolve(__dirname, '../..');
const QR_CONFIG = path.join(ROOT, 'bench/config/qr.js');
const qr = () => loadConfig(QR_CONFIG);

/** A started server's operator listener, from its start line (`... metrics on http://ADDR/metrics`). */
function operatorOrigin(server) {
  const match = /metrics on (http:\/\/[^\s"]+)\/metrics/.exec(server.output());
  if (!match) throw new Error(`no metrics URL in the start line of:\n${server.output()}`);
  return match[1];
}

module.exports = {
  ROOT,
  QR_CONFIG,
  operatorOrigin,
  startServer: launch.startServer,
  // On Bun or Deno where QR_TEST_RUNTIME says so (test/helpers/runtimes.js).
  startTier: (tier, options = {}) => launch.startTier(tier, { config: qr(), ...serverLaunchOptions(), ...options }),
  tierCommand: (tier, options = {}) => launch.tierCommand(tier, { config: qr(), ...serverLaunchOptions(), ...options }),
};
