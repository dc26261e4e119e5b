'use strict';

// The function as it is in JS today: the reference every Rust tier must
// match byte for byte (test/parity.test.js). Replace the body with yours,
// keeping the same errors as core/src/lib.rs.
const { TierError } = require('tier-adapters');

const MAX_INPUT_BYTES = 4096;

/** @param {string} input @returns {Buffer} */
function {{camel}}(input) {
  if (input === '') throw new TierError('EMPTY_INPUT', 'input must not be empty', { status: 400 });
  if (Buffer.byteLength(input, 'utf8') > MAX_INPUT_BYTES) {
    throw new TierError('INPUT_TOO_LONG', `input must be <= ${MAX_INPUT_BYTES} bytes`, { status: 400 });
  }
  return Buffer.from(
    input
      .split(/[^A-Za-z0-9]+/)
      .filter(Boolean)
      .map((word) => word.toLowerCase())
      .join('-'),
  );
}

module.exports = { {{camel}}, MAX_INPUT_BYTES };
