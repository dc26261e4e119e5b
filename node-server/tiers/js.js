'use strict';

// Tier 0: npm `qrcode` in the Node process, with the original article's settings.
const QRCode = require('qrcode');
const { QrError } = require('../lib/errors');
const { runOnLoop } = require('../lib/sync-queue');

const MAX_TEXT_BYTES = 512;
const OPTIONS = {
  type: 'png',
  errorCorrectionLevel: 'L',
  width: 200,
  rendererOpts: { deflateLevel: 9, deflateStrategy: 3 },
};

async function generateQrCode(text) {
  // The Rust tiers get this rule from qr_lib; this tier is the code before
  // Rust, so it keeps its own copy (the shared tests hold the two equal).
  if (text === '') throw new QrError('EMPTY_TEXT', 'text must not be empty');
  if (Buffer.byteLength(text, 'utf8') > MAX_TEXT_BYTES) {
    throw new QrError('TEXT_TOO_LONG', `text must be <= ${MAX_TEXT_BYTES} bytes`);
  }
  return runOnLoop(() => QRCode.toBuffer(text, OPTIONS));
}

module.exports = { generateQrCode };
