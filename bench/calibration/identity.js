'use strict';

// The identity a calibration sends through every tier's boundary: an input
// carries the output's length in decimal, a newline, then filler up to the
// input's own length, so one input sets both sizes. The Rust port
// (port.rs) does the same byte for byte; bench/lib/calibrate.js nets this
// function's own cost out of every tier's.

// The ladder's bound on an input (build.js raises the template's 4096 to it),
// and the same on an output.
const MAX_INPUT_BYTES = 1 << 20;
const MAX_OUTPUT_BYTES = 1 << 20;
const HEAD = /^(\d{1,7})\n/;
const FILL = 0x78; // 'x'

/** The output length an input asks for; throws for an input without one. */
function outputLength(input) {
  const head = HEAD.exec(input);
  if (!head) throw new Error('input must start with the output length in decimal and a newline');
  const length = Number(head[1]);
  if (length > MAX_OUTPUT_BYTES) throw new Error(`output length must be <= ${MAX_OUTPUT_BYTES}`);
  return length;
}

/** `length` bytes of output, as the Rust port returns them. */
function identity(input) {
  return Buffer.alloc(outputLength(input), FILL);
}

/**
 * The input of `inputBytes` bytes that asks for `outputBytes` bytes: the
 * head, then filler. An input shorter than its head cannot be: it is the
 * head alone (`Buffer.byteLength` of the result says how long it is).
 */
function inputFor(inputBytes, outputBytes) {
  const head = `${outputBytes}\n`;
  return head + 'x'.repeat(Math.max(0, inputBytes - head.length));
}

module.exports = { identity, inputFor, outputLength, MAX_INPUT_BYTES, MAX_OUTPUT_BYTES };
