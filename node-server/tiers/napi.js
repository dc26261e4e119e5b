'use strict';

// Tier 3: the napi-rs addon called on the event loop, as in the original article.
const { createEventLoopTier } = require('tier-adapters');
const { loadAddon } = require('../lib/addon');

async function createTier({ maxQueue, deferTurn } = {}) {
  const addon = loadAddon();
  return createEventLoopTier((text) => addon.generateQrCodeSync(text), { maxQueue, deferTurn });
}

module.exports = { createTier };
