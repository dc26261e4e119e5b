'use strict';

// Tier 3: the napi-rs addon called on the event loop, as in the original article.
const { loadAddon } = require('../lib/addon');

let addon;

async function start() {
  addon = loadAddon();
}

async function generateQrCode(text) {
  return addon.generateQrCodeSync(text);
}

module.exports = { start, generateQrCode };
