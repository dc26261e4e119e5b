'use strict';

// Tier 1: one `qr_cli -` process per request, the text on its stdin.
const { createSpawnTier, childFailed } = require('tier-adapters');
const { binaryPath } = require('../lib/binaries');
const { QrError } = require('../lib/errors');

const EXIT_BAD_TEXT = 65;
// `qr_cli: <message> (<CODE>)`
const STDERR_LINE = /^qr_cli: (.*) \(([A-Z0-9_]+)\)$/m;

function decodeFailure(exit) {
  const line = STDERR_LINE.exec(exit.stderr);
  if (exit.code === EXIT_BAD_TEXT && line) return new QrError(line[2], line[1]);
  return childFailed(exit);
}

async function createTier({ maxQueue } = {}) {
  // `-` so the text is never read as a flag.
  return createSpawnTier({ command: binaryPath('qr_cli'), args: ['-'], name: 'qr_cli', maxQueue, decodeFailure });
}

module.exports = { createTier };
