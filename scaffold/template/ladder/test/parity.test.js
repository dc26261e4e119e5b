'use strict';

// Parity: every Rust tier gives the JS reference's bytes for every input of
// corpus.json, and the same error (code, message, HTTP status) for every bad
// one, in process and through the real server.
const { describe, it, after } = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const path = require('node:path');
const readline = require('node:readline');
const corpus = require('../js/corpus');
const reference = require('../js/reference');
const { createTier, tierNames } = require('../js/tiers');
const { httpResponseFor } = require('../js/errors');

const VALID = corpus.valid;
const INVALID = corpus.invalid;

/** The reference's answer: [status, body, error code]. */
function expected(input) {
  try {
    return [200, reference.{{camel}}(input), undefined];
  } catch (err) {
    const [status, body] = httpResponseFor(err);
    return [status, Buffer.from(body), err.code];
  }
}

/** Starts js/server.js for a tier; resolves with its URL and a stop function. */
function startServer(tier) {
  const child = spawn(process.execPath, [path.join(__dirname, '../js/server.js'), '--tier', tier], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server (${tier}) exited with ${code}`)));
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      const url = /listening on (http:\/\/\S+)/.exec(line)?.[1];
      if (url) resolve({ url, stop: () => new Promise((r) => child.removeAllListeners('exit').once('exit', r).kill('SIGTERM')) });
    });
  });
}

for (const name of tierNames) {
  describe(`tier ${name}`, () => {
    const tier = createTier(name);
    after(() => tier.close());

    it('gives the reference bytes for every valid input', async () => {
      for (const input of VALID) {
        const out = await tier.run(input);
        assert.ok(Buffer.isBuffer(out), 'a Buffer');
        assert.deepEqual(out, expected(input)[1], JSON.stringify(input.slice(0, 40)));
      }
    });

    it('gives the reference error for every invalid input', async () => {
      for (const [label, input] of INVALID) {
        const err = await tier.run(input).then(() => assert.fail(`${label}: no error`), (e) => e);
        const [status, body] = httpResponseFor(err);
        const [wantStatus, wantBody, wantCode] = expected(input);
        assert.deepEqual([err.code, status, body], [wantCode, wantStatus, wantBody.toString()], label);
      }
    });

    it('answers the same over HTTP', async () => {
      const server = await startServer(name);
      try {
        for (const input of [VALID[0], ...INVALID.map(([, i]) => i)]) {
          const res = await fetch(`${server.url}/{{name}}?input=${encodeURIComponent(input)}`);
          const [status, body] = expected(input);
          assert.equal(res.status, status);
          assert.deepEqual(Buffer.from(await res.arrayBuffer()), body);
        }
      } finally {
        await server.stop();
      }
    });
  });
}
