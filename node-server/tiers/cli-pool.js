'use strict';

// Tier 1: a fixed pool of long-lived `qr_cli --serve` workers; the framed
// protocol is qr_cli/src/serve.rs (a non-zero status is qr_lib::QrError::number).
const os = require('node:os');
const { createStdioPoolTier } = require('tier-adapters');
const { binaryPath } = require('../lib/binaries');
const { coreError } = require('../lib/errors');

async function createTier({ maxQueue, onRestart, log, poolSize = os.availableParallelism() } = {}) {
  return createStdioPoolTier({
    command: binaryPath('qr_cli'),
    args: ['--serve'],
    name: 'qr_cli',
    size: poolSize,
    maxQueue,
    onRestart: () => onRestart?.('child'),
    log: log?.warn,
    decodeError: (status, payload) => coreError(status, payload.toString('utf8')),
  });
}

module.exports = { createTier };
