'use strict';

const texts = require('../fixtures/texts.json');

// The shared texts plus awkward cases of our own; every tier must return each
// as a QR code of exactly that text.
const OWN = {
  NUL: 'a\u0000b',
  percent: '100%',
  'ampersand and hash': 'a&b=c#d',
  'plus only': '+',
  'surrogate pair at the limit': '🦀'.repeat(128),
  'combining accent': 'e\u0301',
  'URL inside URL': 'https://example.com/?next=https%3A%2F%2Fx.y%2Fz&a=1',
};

/** [name, text] pairs. */
const VALID_TEXTS = [...texts.urls.map((url) => [url, url]), ...Object.entries(texts.edge), ...Object.entries(OWN)];

module.exports = { VALID_TEXTS, URLS: texts.urls };
