'use strict';

// Tier 1: a fixed pool of long-lived `qr_cli --serve` workers; the framed
// protocol is create-rust-ladder's serve.rs (scaffold/template/ladder/cli/src/),
// which qr_cli compiles: a non-zero status is qr_lib::QrError::number, or 255 for a panic.
const os = require('node:os');
const { isUtf8 } = require('node:buffer');
const { createStdioPoolTier } = require('tier-adapters');
const { binaryPath } = require('../lib/binaries');
const { coreError, CORE_ERROR_CODES, PANIC_STATUS } = require('../lib/errors');

// The largest PNG the core can make, bounded: the widest symbol a text of
// at most 512 bytes needs (version 15, 77 modules, 85 with the quiet zone)
// at its module size of 4 px is 340 px a side; its 1-bit rows with their
// filter bytes are 44 bytes, 14,960 in all, of at most 9 byte values, which
// the one Huffman-coded block stores in far fewer (and no block is larger
// than those bytes stored: the writer picks the smallest type), plus under
// 200 bytes of zlib and PNG framing (qr_lib/src/limits.rs, raster.rs, png/).
// A longer answer is no answer.
const MAX_PNG_BYTES = 16 << 10;
// An error frame carries the core's message, a line of text.
const MAX_ERROR_MESSAGE_BYTES = 1024;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
// The IEND chunk every PNG ends with: length 0, type, its CRC.
const PNG_END = Buffer.from([0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]);

/**
 * Whether a frame from `qr_cli --serve` is an answer: a PNG from its
 * signature to its end chunk, or a known error number (a panic's included)
 * with a short UTF-8 message. Bytes a port printed to stdout are neither;
 * stdio-worker.js kills and replaces a worker that sends them, failing its
 * calls (500), rather than hand them to a request.
 */
function isAnswer(status, payload) {
  if (status === 0) {
    return (
      payload.length > PNG_SIGNATURE.length + PNG_END.length &&
      payload.subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE) &&
      payload.subarray(payload.length - PNG_END.length).equals(PNG_END)
    );
  }
  const known = status <= CORE_ERROR_CODES.length || status === PANIC_STATUS;
  return known && payload.length <= MAX_ERROR_MESSAGE_BYTES && isUtf8(payload);
}

async function createTier({ maxQueue, onRestart, log, poolSize = os.availableParallelism() } = {}) {
  return createStdioPoolTier({
    command: binaryPath('qr_cli'),
    args: ['--serve'],
    name: 'qr_cli',
    size: poolSize,
    maxQueue,
    onRestart: () => onRestart?.('child'),
    log: log?.warn,
    decodeError: (status, payload) => coreError(status, payload.toString('utf8')),
    maxAnswerBytes: MAX_PNG_BYTES,
    checkAnswer: isAnswer,
  });
}

module.exports = { createTier, isAnswer, MAX_PNG_BYTES };
