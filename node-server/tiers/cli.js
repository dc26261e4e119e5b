'use strict';

// Tier 1: one `qr_cli -` process per request, the text on its stdin.
const { spawnOwned } = require('../lib/children');
const os = require('node:os');
const { binaryPath } = require('../lib/binaries');
const { Limiter } = require('../lib/limiter');
const { QrError } = require('../lib/errors');

const EXIT_BAD_TEXT = 65;
// `qr_cli: <message> (<CODE>)`
const STDERR_LINE = /^qr_cli: (.*) \(([A-Z0-9_]+)\)$/m;

let bin;
// Forking costs more than encoding: a few processes at a time is the most
// the CPUs can use, and 100 concurrent requests must not mean 100 forks.
let limiter;

async function start({ maxQueue = 512 } = {}) {
  bin = binaryPath('qr_cli');
  limiter = new Limiter({ concurrency: os.availableParallelism() * 2, maxQueue });
}

function runOnce(text, signal) {
  return new Promise((resolve, reject) => {
    // No shell, and `-` so the text is never read as a flag. `signal` kills
    // the child when the client goes away.
    const child = spawnOwned(bin, ['-'], { stdio: ['pipe', 'pipe', 'pipe'], signal });
    // First: a failed spawn (EMFILE, ENOENT) reports here and leaves stdio null.
    child.on('error', (cause) => reject(new QrError('SPAWN_FAILED', cause.message, { cause })));
    if (!child.stdin) return;
    const out = [];
    const err = [];
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    child.stdin.on('error', () => {}); // EPIPE if it died early; 'close' reports it
    child.on('close', (code, signal) => {
      if (code === 0) return resolve(out.length === 1 ? out[0] : Buffer.concat(out));
      const stderr = Buffer.concat(err).toString('utf8');
      const line = STDERR_LINE.exec(stderr);
      if (code === EXIT_BAD_TEXT && line) return reject(new QrError(line[2], line[1]));
      reject(new QrError('CHILD_FAILED', `qr_cli exited with ${signal ?? code}: ${stderr.trim()}`));
    });
    child.stdin.end(text);
  });
}

function generateQrCode(text, { signal } = {}) {
  return limiter.run(() => runOnce(text, signal), signal);
}

module.exports = { start, generateQrCode };
