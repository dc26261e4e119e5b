'use strict';

// Parity: every Rust tier gives the JS reference's bytes for every input of
// corpus.json, and the same error (code, message, HTTP status) for every bad
// one, in process and through the real server; and the ffi crate's library
// gives the same under Bun (bun:ffi) and Deno (Deno.dlopen) where they are
// installed.
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const corpus = require('../js/corpus');
const reference = require('../js/reference');
const { createTier, tierNames, unsupported, FFI_LIBRARY } = require('../js/tiers');
const { httpResponseFor } = require('tier-adapters/server');
const { ANSWERS, CODES } = require('../js/errors');
const { SYMBOLS } = require('../js/ffi');

const VALID = corpus.valid;
const INVALID = corpus.invalid;

/** The reference's answer: [status, body, error code]. */
function expected(input) {
  try {
    return [200, reference.ladderExample(input), undefined];
  } catch (err) {
    const [status, body] = httpResponseFor(err, ANSWERS);
    return [status, Buffer.from(body), err.code];
  }
}

/** Starts js/server.js for a tier; resolves with its URL and a stop function. */
function startServer(tier) {
  const script = path.join(__dirname, '../js/server.js');
  const child = spawn(process.execPath, [script, '--tier', tier], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server (${tier}) exited with ${code}`)));
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      const url = /listening on (http:\/\/\S+)/.exec(line)?.[1];
      const stop = () => new Promise((r) => child.removeAllListeners('exit').once('exit', r).kill('SIGTERM'));
      if (url) resolve({ url, stop });
    });
  });
}

for (const name of tierNames) {
  // A tier this runtime cannot serve (ffi without node:ffi) is skipped, with the reason.
  describe(`tier ${name}`, { skip: unsupported(name) ?? false }, () => {
    let tier;
    before(() => {
      tier = createTier(name);
    });
    after(() => tier?.close());

    it('gives the reference bytes for every valid input', async () => {
      for (const input of VALID) {
        const out = await tier.run(input);
        assert.ok(Buffer.isBuffer(out), 'a Buffer');
        assert.deepEqual(out, expected(input)[1], JSON.stringify(input.slice(0, 40)));
      }
    });

    it('gives the reference error for every invalid input', async () => {
      for (const [label, input] of INVALID) {
        const err = await tier.run(input).then(
          () => assert.fail(`${label}: no error`),
          (e) => e,
        );
        const [status, body] = httpResponseFor(err, ANSWERS);
        const [wantStatus, wantBody, wantCode] = expected(input);
        assert.deepEqual([err.code, status, body], [wantCode, wantStatus, wantBody.toString()], label);
      }
    });

    it('answers the same over HTTP', async () => {
      const server = await startServer(name);
      try {
        for (const input of [VALID[0], ...INVALID.map(([, i]) => i)]) {
          const res = await fetch(`${server.url}/ladder-example?input=${encodeURIComponent(input)}`);
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

/** The runtime's binary: $LADDER_BUN or $LADDER_DENO, else the first on PATH; null if neither. */
function findRuntime(name) {
  const fromEnv = process.env[`LADDER_${name.toUpperCase()}`];
  if (fromEnv) return fromEnv;
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      // Not in this directory.
    }
  }
  return null;
}

const RUNTIMES = [
  { name: 'bun', loader: 'bun:ffi', args: [] },
  { name: 'deno', loader: 'Deno.dlopen', args: ['run', '--allow-read', '--allow-ffi'] },
];

for (const { name, loader, args } of RUNTIMES) {
  const bin = findRuntime(name);
  const skip = !bin && `${name} not found on PATH (or $LADDER_${name.toUpperCase()}): install it to check ${loader}`;
  describe(`ffi library under ${name} (${loader})`, { skip }, () => {
    it('gives the reference bytes for every valid input and its error for every invalid one', () => {
      assert.ok(fs.existsSync(FFI_LIBRARY), `${FFI_LIBRARY} not found: run the build`);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ffi-parity-'));
      let run;
      try {
        const inputs = path.join(dir, 'inputs.json');
        fs.writeFileSync(inputs, JSON.stringify([...VALID, ...INVALID.map(([, input]) => input)]));
        const runner = path.join(__dirname, 'ffi-runner.mjs');
        run = spawnSync(bin, [...args, runner, FFI_LIBRARY, SYMBOLS.call, SYMBOLS.free, inputs], {
          cwd: path.join(__dirname, '..'),
          encoding: 'utf8',
          maxBuffer: 256 << 20,
        });
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
      assert.equal(run.status, 0, run.stderr);
      const results = JSON.parse(run.stdout);
      VALID.forEach((input, i) => {
        const want = { output: expected(input)[1].toString('base64') };
        assert.deepEqual(results[i], want, JSON.stringify(input.slice(0, 40)));
      });
      INVALID.forEach(([label, input], i) => {
        const [, body, code] = expected(input);
        // The library's status is the core's Error::number: CODES' index + 1.
        const want = { status: CODES.indexOf(code) + 1, message: body.toString() };
        assert.deepEqual(results[VALID.length + i], want, label);
      });
    });
  });
}
