'use strict';

// Tier 3: the napi-rs addon called on the event loop, as in the original article.
const { loadAddon } = require('../lib/addon');
const { runOnLoop } = require('../lib/sync-queue');

let addon;

async function start() {
  addon = loadAddon();
}

function generateQrCode(text) {
  return runOnLoop(() => addon.generateQrCodeSync(text));
}

module.exports = { start, generateQrCode };
