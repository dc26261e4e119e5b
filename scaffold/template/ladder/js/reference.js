'use strict';

// The reference every Rust tier must match byte for byte
// (test/parity.test.js): the JavaScript function this ladder ports, called
// as the service calls it today, inside the same bounds as the Rust core.
const { TierError } = require('tier-adapters');
// create-rust-ladder points this line at the function its `--from` names.
const { ladderExample: original } = require('../../service/src/ladder-example.js');

// core/src/lib.rs: MAX_INPUT_BYTES.
const MAX_INPUT_BYTES = 4096;

/**
 * The original's output as bytes (a string as UTF-8). Whatever it throws is
 * the input's fault: 400 with its message, as the Rust port's
 * `Error::Invalid(message)`.
 * @param {string} input @returns {Buffer}
 */
function reference(input) {
  if (input === '') throw new TierError('EMPTY_INPUT', 'input must not be empty', { status: 400 });
  if (Buffer.byteLength(input, 'utf8') > MAX_INPUT_BYTES) {
    throw new TierError('INPUT_TOO_LONG', `input must be <= ${MAX_INPUT_BYTES} bytes`, { status: 400 });
  }
  let out;
  try {
    out = original(input);
  } catch (err) {
    throw new TierError('INVALID_INPUT', err.message, { status: 400, cause: err });
  }
  if (typeof out === 'string') return Buffer.from(out, 'utf8');
  if (out instanceof Uint8Array) return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  throw new TypeError(`the original returned ${typeof out}: a string or bytes is what a Rust port can match`);
}

// Exported under the function's name; `reference` inside, whatever that name is.
module.exports = { ladderExample: reference, MAX_INPUT_BYTES };
