'use strict';

// Tier 0: npm `qrcode` in the Node process, with the original article's settings.
const QRCode = require('qrcode');
const { QrError } = require('../lib/errors');
const { createLoopQueue } = require('../lib/sync-queue');

const MAX_TEXT_BYTES = 512;
const OPTIONS = {
  type: 'png',
  errorCorrectionLevel: 'L',
  width: 200,
  rendererOpts: { deflateLevel: 9, deflateStrategy: 3 },
};

let queue;

async function start({ maxQueue = 512 } = {}) {
  queue = createLoopQueue({ maxQueue });
}

function generateQrCode(text, { signal } = {}) {
  // The Rust tiers get this rule from qr_lib; this tier is the code before
  // Rust, so it keeps its own copy (the shared tests hold the two equal).
  if (text === '') return Promise.reject(new QrError('EMPTY_TEXT', 'text must not be empty'));
  if (Buffer.byteLength(text, 'utf8') > MAX_TEXT_BYTES) {
    return Promise.reject(new QrError('TEXT_TOO_LONG', `text must be <= ${MAX_TEXT_BYTES} bytes`));
  }
  return queue.run(() => QRCode.toBuffer(text, OPTIONS), { signal });
}

module.exports = { start, generateQrCode };
