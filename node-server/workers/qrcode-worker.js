'use strict';

// Runs in piscina's worker threads: tier `js`'s function, unchanged. An Error
// crossing threads keeps only its message, so a QrError comes back as a
// plain { code, message } for js-workers.js to rebuild.
const { generateQrCodeJs } = require('../tiers/js');
const { QrError } = require('../lib/errors');
const { move } = require('piscina');

module.exports = async function generate(text) {
  let png;
  try {
    png = await generateQrCodeJs(text);
  } catch (err) {
    if (err instanceof QrError) return { code: err.code, message: err.message };
    throw err;
  }
  // A small Buffer is a slice of Node's shared pool: copy it into its own
  // ArrayBuffer once and hand that over instead of cloning the whole pool.
  // One that owns its ArrayBuffer is handed over as it is.
  const owned = png.byteOffset === 0 && png.byteLength === png.buffer.byteLength;
  return move(owned ? png : new Uint8Array(png));
};
