'use strict';

// The QR benchmarks' text sets: the fixture's URLs, and URL-like texts
// of an exact byte length cut from them (as qr_lib/benches/core.rs builds them).
const path = require('node:path');

const FIXTURE = path.resolve(__dirname, '../../test/fixtures/texts.json');
const CURVE_LENGTHS = [16, 64, 128, 256, 384, 512];

/** `len` bytes of URL-like text from `offset` in the URLs joined by spaces. */
function urlText(urls, len, offset) {
  const joined = Buffer.from(urls.join(' '));
  const repeated = Buffer.concat(Array(1 + Math.floor((offset + len) / joined.length)).fill(joined));
  // The URLs are ASCII, so latin1 here is UTF-8 too.
  return repeated.subarray(offset, offset + len).toString('latin1');
}

/** Eight different texts of exactly `len` bytes. */
function textsOfLength(urls, len) {
  return Array.from({ length: 8 }, (_, i) => urlText(urls, len, 37 * i));
}

const qrcodePath = (text) => `/qrcode?text=${encodeURIComponent(text)}`;

module.exports = { FIXTURE, CURVE_LENGTHS, urlText, textsOfLength, qrcodePath };
