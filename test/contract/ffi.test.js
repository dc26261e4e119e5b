'use strict';

// qr_ffi, the core behind a plain C ABI, under its three loaders: node:ffi
// (tier ffi), bun:ffi and Deno.dlopen. Each gives the napi addon's bytes and
// the core's errors, and a Rust panic stops at the boundary under each.
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const v8 = require('node:v8');
const vm = require('node:vm');
const { isBuiltin } = require('node:module');
const addon = require('@qr-toolkit/napi');
const { ROOT } = require('../helpers/servers');
const { decodeQrPng } = require('../helpers/decode');
const { VALID_TEXTS } = require('../helpers/fixtures');
const { PANIC_TEXT, TESTING_ENV } = require('../helpers/testing-build');
const { RUNTIMES, scriptArgs } = require('../helpers/runtimes');
const { CORE_ERROR_CODES } = require('../../node-server/lib/errors');

const SHIPPED = path.join(ROOT, 'target/release/libqr_ffi.so');
const TESTING = TESTING_ENV.QR_FFI_LIB;
// create-rust-ladder's runner: the C ABI through tier-adapters' loadCAbi, under Bun or Deno.
const RUNNER = path.join(ROOT, 'scaffold/template/ladder/test/ffi-runner.mjs');
const PANIC_MESSAGE = 'qr_ffi panicked: test-only panic';
/** [text, core code, message] */
const ERRORS = [
  ['', 'EMPTY_TEXT', 'text must not be empty'],
  ['a'.repeat(513), 'TEXT_TOO_LONG', 'text must be <= 512 bytes'],
  ['€'.repeat(171), 'TEXT_TOO_LONG', 'text must be <= 512 bytes'],
];
const TEXTS = VALID_TEXTS.map(([, text]) => text);

const NO_NODE_FFI = !isBuiltin('node:ffi') && `Node ${process.version} has no node:ffi`;

describe('qr_ffi through node:ffi', { skip: NO_NODE_FFI }, () => {
  // Loaded here, not at the top: node:ffi does not exist on the other Node lines.
  const load = (file) => require('../../node-server/lib/qr-ffi').loadQrFfi(file);

  it("returns the napi addon's bytes", () => {
    const generateQrCode = load(SHIPPED);
    for (const text of TEXTS) assert.ok(generateQrCode(text).equals(addon.generateQrCodeSync(text)), text);
  });

  it("throws the core's errors, with their code and message", () => {
    const generateQrCode = load(SHIPPED);
    for (const [text, code, message] of ERRORS) {
      assert.throws(
        () => generateQrCode(text),
        (err) => err instanceof Error && err.code === code && err.message === message,
      );
    }
  });

  it('turns a Rust panic into an Error and keeps working', () => {
    // In a child: the panic message goes to its stderr, and it must exit normally.
    const script = `
      const generateQrCode = require('./node-server/lib/qr-ffi').loadQrFfi(${JSON.stringify(TESTING)});
      const out = [];
      try { generateQrCode(${JSON.stringify(PANIC_TEXT)}); } catch (e) { out.push(e.code, e.message); }
      out.push(generateQrCode('still alive').toString('base64'));
      console.log(JSON.stringify(out));`;
    const env = { ...process.env, ...TESTING_ENV };
    const { status, stdout, stderr } = spawnSync(process.execPath, ['-e', script], { cwd: ROOT, env });
    assert.equal(status, 0, stderr.toString());
    const alive = addon.generateQrCodeSync('still alive').toString('base64');
    assert.deepEqual(JSON.parse(stdout), ['PANIC', PANIC_MESSAGE, alive]);
  });

  it('ships no test hook: PANIC_TEXT is just a text', async () => {
    assert.equal((await decodeQrPng(load(SHIPPED)(PANIC_TEXT))).text, PANIC_TEXT);
  });

  it('frees every result and message: after the heap settles, more calls leave RSS where it was', () => {
    const generateQrCode = load(SHIPPED);
    const results = (n) => {
      for (let i = 0; i < n; i++) generateQrCode(`leak check ${i}`);
    };
    // An error's message is a buffer of the library's too.
    const errors = (n) => {
      for (let i = 0; i < n; i++) assert.throws(() => generateQrCode(''));
    };
    // V8's heap grows to its working size over the first 200,000 calls or so (11 MiB in a lone process, less
    // after other tests), then stays there: only a collected heap after that shows what the library keeps.
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc');
    results(200_000);
    errors(100_000);
    // Leaked, 100,000 results (about 300 bytes each) would keep 30 MiB, 200,000 messages (22 bytes) about
    // 5 MiB with the allocator's headers.
    for (const [what, run] of [
      ['100,000 results', () => results(100_000)],
      ['200,000 errors', () => errors(200_000)],
    ]) {
      gc();
      const before = process.memoryUsage.rss();
      run();
      gc();
      const grown = process.memoryUsage.rss() - before;
      assert.ok(grown < 2 << 20, `${what}: RSS grew ${(grown / 2 ** 20).toFixed(1)} MiB`);
    }
  });
});

for (const runtime of RUNTIMES) {
  const skip = !runtime.installed && `${runtime.bin} not installed: run scripts/setup-runtimes.sh`;
  const loader = runtime.name === 'bun' ? 'bun:ffi' : 'Deno.dlopen';
  describe(`qr_ffi through ${loader} (${runtime.name} ${runtime.version})`, { skip }, () => {
    let dir;
    before(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qr-ffi-'));
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    /** The runner's results for `texts` with `library`. */
    const run = (library, texts) => {
      const file = path.join(dir, 'texts.json');
      fs.writeFileSync(file, JSON.stringify(texts));
      const { status, stdout, stderr } = spawnSync(
        runtime.bin,
        scriptArgs(runtime, RUNNER, library, 'qr_generate', 'qr_free', file),
        {
          cwd: ROOT,
          env: { ...process.env, RUST_BACKTRACE: '0' },
          maxBuffer: 64 << 20,
        },
      );
      assert.equal(status, 0, stderr.toString());
      return JSON.parse(stdout);
    };

    it("returns the napi addon's bytes and the core's errors", () => {
      const results = run(SHIPPED, [...TEXTS, ...ERRORS.map(([text]) => text)]);
      TEXTS.forEach((text, i) => {
        assert.equal(results[i].output, addon.generateQrCodeSync(text).toString('base64'), text);
      });
      ERRORS.forEach(([, code, message], i) => {
        assert.deepEqual(results[TEXTS.length + i], { status: CORE_ERROR_CODES.indexOf(code) + 1, message });
      });
    });

    it('turns a Rust panic into a status and keeps working', () => {
      assert.deepEqual(run(TESTING, [PANIC_TEXT, 'still alive']), [
        { status: 255, message: PANIC_MESSAGE },
        { output: addon.generateQrCodeSync('still alive').toString('base64') },
      ]);
    });
  });
}
