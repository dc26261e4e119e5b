'use strict';

// node-server's page in real headless Chromium (Debian's `chromium`, driven
// by puppeteer-core): typing a text makes a PNG in the browser with the Wasm
// build; it must decode to the typed text and equal the server's bytes.
// The screenshot stays in test/out/ as an artifact.
const { describe, it, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const puppeteer = require('puppeteer-core');
const { startTier, ROOT } = require('../helpers/servers');
const { get, qrcodePath } = require('../helpers/http');
const { decodeQrPng } = require('../helpers/decode');

const OUT = path.join(ROOT, 'test/out');
const CHROMIUM =
  process.env.CHROMIUM_BIN ||
  execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim();

/** The bytes behind an <img>'s (blob:) URL, read in the page as a user's "save image" would. */
const imageBytes = (page, selector) =>
  page
    .$eval(selector, async (img) => {
      const bytes = new Uint8Array(await (await fetch(img.src)).arrayBuffer());
      let binary = '';
      for (const b of bytes) binary += String.fromCharCode(b);
      return btoa(binary);
    })
    .then((b64) => Buffer.from(b64, 'base64'));

describe('the page, in Chromium', () => {
  let server;
  let browser;
  before(async () => {
    server = await startTier('napi');
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu'],
    });
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  for (const text of ['https://example.com/héllo?a=1&b=2', '🦀 Rust in the browser']) {
    it(`makes the same PNG in the browser as the server for ${JSON.stringify(text)}`, async () => {
      const page = await browser.newPage();
      const problems = [];
      page.on('pageerror', (err) => problems.push(err.message));
      page.on('console', (msg) => msg.type() === 'error' && problems.push(msg.text()));
      try {
        await page.setViewport({ width: 800, height: 600 });
        await page.goto(`${server.url}/`, { waitUntil: 'load' });
        // The tier label is filled in once the Wasm module is initialised.
        await page.waitForFunction(() => document.querySelector('#tier').textContent !== '?', { timeout: 10_000 });
        assert.equal(await page.$eval('#tier', (el) => el.textContent), 'napi');
        await page.type('#text', text);
        await page.waitForFunction(
          (t) => document.querySelector('#encoded').textContent === t,
          { timeout: 10_000 },
          text,
        );
        const inBrowser = await imageBytes(page, '#browser-png');
        const fromServer = (await get(server.url, qrcodePath(text))).body;
        assert.equal((await decodeQrPng(inBrowser)).text, text);
        assert.ok(inBrowser.equals(fromServer), 'the browser and the server made byte-identical PNGs');
        assert.equal(await page.$eval('#same', (el) => el.textContent), 'Byte-identical PNGs');
        assert.match(await page.$eval('#browser-time', (el) => el.textContent), /^\d+\.\d\d ms$/);
        fs.mkdirSync(OUT, { recursive: true });
        await page.screenshot({ path: path.join(OUT, `page-${Buffer.from(text).length}.png`) });
        assert.deepEqual(problems, []);
      } finally {
        await page.close();
      }
    });
  }

  it('shows the core error for a text over 512 bytes, from both sides', async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${server.url}/`, { waitUntil: 'load' });
      await page.waitForFunction(() => document.querySelector('#tier').textContent !== '?', { timeout: 10_000 });
      // The input's maxlength counts UTF-16 units: 200 three-byte characters fit, 600 bytes.
      await page.$eval('#text', (el) => {
        el.value = '€'.repeat(200);
        el.dispatchEvent(new Event('input'));
      });
      await page.waitForFunction(() => document.querySelector('#error').textContent.includes('server:'), {
        timeout: 10_000,
      });
      assert.equal(
        await page.$eval('#error', (el) => el.textContent),
        'in this page: TEXT_TOO_LONG text must be <= 512 bytes; server: 400 text must be <= 512 bytes',
      );
    } finally {
      await page.close();
    }
  });
});
