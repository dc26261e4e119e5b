'use strict';

// Tier 3: the napi-rs AsyncTask; the work runs on libuv's thread pool
// (UV_THREADPOOL_SIZE threads), so one process uses every core.
const { loadAddon } = require('../lib/addon');

let addon;

async function start() {
  addon = loadAddon();
}

function generateQrCode(text) {
  return addon.generateQrCode(text);
}

module.exports = { start, generateQrCode };
