'use strict';

// The napi-rs addon as a package: sync and async agree, errors carry the
// core's code, a Rust panic does not take Node down, the async form keeps the
// event loop turning, and the packed tarball installs and works elsewhere.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const addon = require('@qr-toolkit/napi');
const { ROOT } = require('../helpers/servers');
const { decodeQrPng } = require('../helpers/decode');
const { VALID_TEXTS } = require('../helpers/fixtures');
const { PANIC_TEXT, NAPI_NODE } = require('../helpers/testing-build');

const QR_CLI = process.env.QR_CLI_BIN || path.join(ROOT, 'target/release/qr_cli');

describe('qr_napi addon', () => {
  it('returns the same Buffer bytes sync and async, and the same as qr_cli', async () => {
    for (const [, text] of VALID_TEXTS) {
      const sync = addon.generateQrCodeSync(text);
      const asyncPng = await addon.generateQrCode(text);
      assert.ok(Buffer.isBuffer(sync) && Buffer.isBuffer(asyncPng));
      assert.ok(sync.equals(asyncPng), text);
      assert.ok(sync.equals(execFileSync(QR_CLI, ['-'], { input: text })), text);
    }
  });

  it('throws Errors with the core message and a stable code', async () => {
    const cases = [
      ['', 'EMPTY_TEXT', 'text must not be empty'],
      ['a'.repeat(513), 'TEXT_TOO_LONG', 'text must be <= 512 bytes'],
      ['€'.repeat(171), 'TEXT_TOO_LONG', 'text must be <= 512 bytes'],
    ];
    for (const [text, code, message] of cases) {
      assert.throws(
        () => addon.generateQrCodeSync(text),
        (err) => err instanceof Error && err.code === code && err.message === message,
      );
      await assert.rejects(
        addon.generateQrCode(text),
        (err) => err instanceof Error && err.code === code && err.message === message,
      );
    }
    assert.throws(() => addon.generateQrCodeSync(42), { code: 'StringExpected' });
  });

  it('turns a Rust panic into an Error, sync and on the thread pool, and keeps working', async () => {
    // The panic message goes to stderr; run in a child to keep this output clean
    // and to prove the process itself survives and exits normally.
    // The testing build (scripts/build-testing.sh) panics on PANIC_TEXT.
    const script = `
      const addon = require(${JSON.stringify(NAPI_NODE)});
      const text = ${JSON.stringify(PANIC_TEXT)};
      const out = [];
      try { addon.generateQrCodeSync(text); } catch (e) { out.push(e.code, e.message); }
      addon.generateQrCode(text).catch((e) => out.push(e.code)).then(async () => {
        out.push((await addon.generateQrCode('still alive')).length > 0);
        console.log(JSON.stringify(out));
      });`;
    const { status, stdout } = spawnSync(process.execPath, ['-e', script], {
      cwd: ROOT,
      env: { ...process.env, RUST_BACKTRACE: '0' },
    });
    assert.equal(status, 0);
    assert.deepEqual(JSON.parse(stdout), ['PANIC', 'qr_napi panicked: test-only panic', 'PANIC', true]);
  });

  it('ships no test hook: PANIC_TEXT is just a text', async () => {
    assert.deepEqual(
      Object.keys(addon).filter((k) => /test/i.test(k)),
      [],
    );
    assert.equal((await decodeQrPng(addon.generateQrCodeSync(PANIC_TEXT))).text, PANIC_TEXT);
    assert.doesNotMatch(fs.readFileSync(path.join(ROOT, 'qr_napi/index.d.ts'), 'utf8'), /Testing/);
  });

  it('can be aborted with an AbortSignal', async () => {
    const controller = new AbortController();
    const pending = addon.generateQrCode('never mind', controller.signal);
    controller.abort();
    // Aborted before a pool thread took it, or finished first: never hangs.
    await pending.then(
      (png) => assert.ok(Buffer.isBuffer(png)),
      (err) => assert.equal(err.name, 'AbortError'),
    );
  });

  it('keeps the event loop turning while async calls run; the sync calls block it', async () => {
    const text = 'z'.repeat(512); // the slowest valid input
    const ticksDuring = async (work) => {
      let ticks = 0;
      const timer = setInterval(() => ticks++, 1);
      await work();
      clearInterval(timer);
      return ticks;
    };
    // Enough calls for about 50 ms of work at this machine's pace, so that a
    // 1 ms timer has room to fire however fast the core gets (200 calls of
    // a faster core once ran in under the timer's first millisecond).
    const started = process.hrtime.bigint();
    for (let i = 0; i < 50; i++) addon.generateQrCodeSync(text);
    const perCall = Number(process.hrtime.bigint() - started) / 50 / 1e6;
    const calls = Math.max(200, Math.ceil(50 / perCall));
    const asyncTicks = await ticksDuring(() =>
      Promise.all(Array.from({ length: calls }, () => addon.generateQrCode(text))),
    );
    const syncTicks = await ticksDuring(async () => {
      for (let i = 0; i < calls; i++) addon.generateQrCodeSync(text);
    });
    assert.ok(asyncTicks >= 1, `timer fired ${asyncTicks} times during ${calls} async calls`);
    assert.equal(syncTicks, 0, 'nothing else runs during the sync calls');
  });

  it('packs as napi-rs main packages do: the loaders and types, no binary', () => {
    // The binaries ship in the npm/<platform> packages (scripts/package.sh);
    // test/artifacts/package.test.js installs and runs all of them.
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--dry-run'], { cwd: path.join(ROOT, 'qr_napi'), encoding: 'utf8' }),
    );
    assert.deepEqual(packed[0].files.map((f) => f.path).sort(), [
      'index.d.mts',
      'index.d.ts',
      'index.js',
      'index.mjs',
      'package.json',
    ]);
  });
});
