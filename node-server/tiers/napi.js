'use strict';

// Tier 3: the napi-rs addon called on the event loop, as in the original article.
const { loadAddon } = require('../lib/addon');
const { createLoopQueue } = require('../lib/sync-queue');

let addon;
let queue;

async function start({ maxQueue = 512 } = {}) {
  addon = loadAddon();
  queue = createLoopQueue({ maxQueue });
}

function generateQrCode(text, { signal } = {}) {
  return queue.run(() => addon.generateQrCodeSync(text), { signal });
}

module.exports = { start, generateQrCode };
