'use strict';

// Decodes a QR-code PNG back to its text, independently of every tier:
// pngjs checks the PNG and its size, zbarimg (Debian's zbar-tools) decodes the
// symbol. zbar is a real-world decoder and reads the js tier's 200 px images,
// whose modules are 2 or 3 px wide, where jsQR gives up.
const { execFile } = require('node:child_process');
const fs = require('node:fs/promises');
const os = require('node:os');
const path = require('node:path');
const { PNG } = require('pngjs');

const utf8 = new TextDecoder('utf-8', { fatal: true });
let seq = 0;

/** @returns {Promise<{ width: number, height: number, text: string }>} */
async function decodeQrPng(buffer) {
  const { width, height } = PNG.sync.read(buffer);
  const file = path.join(os.tmpdir(), `qr-decode-${process.pid}-${seq++}.png`);
  await fs.writeFile(file, buffer);
  try {
    // -Sbinary: the payload bytes as they are, no charset guessing, no newline.
    const stdout = await new Promise((resolve, reject) => {
      execFile('zbarimg', ['--quiet', '--raw', '-Sbinary', file], { encoding: 'buffer' }, (err, out) =>
        err ? reject(new Error(`zbarimg found no QR code in a ${width}x${height} PNG`)) : resolve(out),
      );
    });
    return { width, height, text: utf8.decode(stdout) };
  } finally {
    await fs.rm(file, { force: true });
  }
}

module.exports = { decodeQrPng };
