'use strict';

// Tier 0: npm `qrcode` in the Node process, with the original article's settings.
const QRCode = require('qrcode');
const { createEventLoopTier } = require('tier-adapters');
const { QrError } = require('../lib/errors');

const MAX_TEXT_BYTES = 512;
const OPTIONS = {
  type: 'png',
  errorCorrectionLevel: 'L',
  width: 200,
  rendererOpts: { deflateLevel: 9, deflateStrategy: 3 },
};

/**
 * The function before Rust. The Rust tiers get the input rules from qr_lib; this keeps its own copy
 * (the shared tests hold the two equal).
 */
function generateQrCodeJs(text) {
  if (text === '') throw new QrError('EMPTY_TEXT', 'text must not be empty');
  if (Buffer.byteLength(text, 'utf8') > MAX_TEXT_BYTES) {
    throw new QrError('TEXT_TOO_LONG', `text must be <= ${MAX_TEXT_BYTES} bytes`);
  }
  return QRCode.toBuffer(text, OPTIONS);
}

async function createTier({ maxQueue, deferTurn } = {}) {
  return createEventLoopTier(generateQrCodeJs, { maxQueue, deferTurn });
}

module.exports = { createTier, generateQrCodeJs };
