'use strict';

// The two Wasm tiers' adapters, in process: errors, traps, and leaks.
const { describe, it, afterEach } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { httpResponseFor } = require('tier-adapters/server');
const { ANSWERS } = require('../../node-server/lib/errors');
const { QrWasmRaw } = require('../../node-server/lib/qr-wasm-raw');
const { decodeQrPng } = require('../helpers/decode');
const { PANIC_TEXT, TESTING_ENV } = require('../helpers/testing-build');
const { ROOT } = require('../helpers/servers');

for (const name of ['wasm', 'wasm-raw']) {
  describe(`tier ${name} adapter`, () => {
    const { createTier } = require(`../../node-server/tiers/${name}`);
    afterEach(() => delete process.env.QR_WASM_DIR);

    it('throws the core error codes and messages', async () => {
      const tier = await createTier();
      await assert.rejects(tier.run(''), { code: 'EMPTY_TEXT', message: 'text must not be empty' });
      await assert.rejects(tier.run('€'.repeat(171)), {
        code: 'TEXT_TOO_LONG',
        message: 'text must be <= 512 bytes',
      });
      const png = await tier.run('€'.repeat(170)); // 510 bytes of 3-byte chars
      assert.equal((await decodeQrPng(png)).text, '€'.repeat(170));
    });

    it('answers a trap with a 500 and a fresh instance that works', async () => {
      // The testing build (scripts/build-testing.sh) panics, so traps, on PANIC_TEXT.
      process.env.QR_WASM_DIR = TESTING_ENV.QR_WASM_DIR;
      const tier = await createTier();
      const err = await tier.run(PANIC_TEXT).then(
        () => null,
        (e) => e,
      );
      assert.equal(err?.code, 'WASM_TRAP');
      assert.deepEqual(httpResponseFor(err, ANSWERS), [500, 'failed generating qr code', {}]);
      const png = await tier.run('after the trap');
      assert.equal((await decodeQrPng(png)).text, 'after the trap');
    });

    it('ships no test hook: PANIC_TEXT is just a text', async () => {
      const tier = await createTier();
      assert.equal((await decodeQrPng(await tier.run(PANIC_TEXT))).text, PANIC_TEXT);
    });

    it('keeps two instances apart in one process', async () => {
      process.env.QR_WASM_DIR = TESTING_ENV.QR_WASM_DIR;
      const testing = await createTier();
      delete process.env.QR_WASM_DIR;
      const shipped = await createTier();
      // The testing build traps on PANIC_TEXT, the shipped one encodes it.
      await assert.rejects(testing.run(PANIC_TEXT), { code: 'WASM_TRAP' });
      assert.equal((await decodeQrPng(await shipped.run(PANIC_TEXT))).text, PANIC_TEXT);
    });
  });
}

describe('the shipped Wasm modules', () => {
  it('export only their API', () => {
    const raw = new WebAssembly.Module(fs.readFileSync(path.join(ROOT, 'qr_wasm/pkg-raw/qr_wasm_raw.wasm')));
    const names = WebAssembly.Module.exports(raw).map((e) => e.name);
    for (const name of ['memory', 'qr_alloc', 'qr_free', 'qr_generate']) assert.ok(names.includes(name), name);
    assert.deepEqual(
      names.filter((n) => /test|trap/i.test(n)),
      [],
    );
    assert.doesNotMatch(fs.readFileSync(path.join(ROOT, 'qr_wasm/pkg/qr_wasm.d.ts'), 'utf8'), /Testing/);
  });
});

describe('wasm-raw memory', () => {
  it('stops growing after warm-up over 100,000 calls', () => {
    const module_ = new WebAssembly.Module(fs.readFileSync(path.join(ROOT, 'qr_wasm/pkg-raw/qr_wasm_raw.wasm')));
    const instance = new QrWasmRaw(module_);
    const texts = ['short', 'z'.repeat(512), '🦀'.repeat(128), 'https://github.com/rust-lang/rustlings'];
    for (let i = 0; i < 1000; i++) instance.generateQrCode(texts[i % texts.length]);
    const warm = instance.memoryBytes;
    for (let i = 0; i < 100_000; i++) instance.generateQrCode(texts[i % texts.length]);
    assert.equal(instance.memoryBytes, warm, `memory grew from ${warm} to ${instance.memoryBytes} bytes`);
  });
});
