'use strict';

// qr_cli as users run it: argv, stdin, exit statuses, and the --serve framing.
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync, spawn } = require('node:child_process');
const path = require('node:path');
const { ROOT } = require('../helpers/servers');
const { decodeQrPng } = require('../helpers/decode');

const BIN = process.env.QR_CLI_BIN || path.join(ROOT, 'target/release/qr_cli');
const run = (args, input) => spawnSync(BIN, args, { input });

describe('qr_cli', () => {
  it('writes the PNG of its argument to stdout', async () => {
    const { status, stdout } = run(['hello world']);
    assert.equal(status, 0);
    assert.equal((await decodeQrPng(stdout)).text, 'hello world');
  });

  it('reads every stdin byte with -', async () => {
    const { status, stdout } = run(['-'], 'line one\nline two\n');
    assert.equal(status, 0);
    assert.equal((await decodeQrPng(stdout)).text, 'line one\nline two\n');
  });

  it('encodes flag-like text after --', async () => {
    for (const text of ['--help', '-h', '-']) {
      const { status, stdout } = run(['--', text]);
      assert.equal(status, 0, text);
      assert.equal((await decodeQrPng(stdout)).text, text);
    }
  });

  it('gives the same bytes from argv and stdin', () => {
    assert.ok(run(['same']).stdout.equals(run(['-'], 'same').stdout));
  });

  it('prints --help and --version', () => {
    assert.match(run(['--help']).stdout.toString(), /^Usage:/);
    assert.match(run(['--version']).stdout.toString(), /^qr_cli \d+\.\d+\.\d+/);
  });

  it('exits 2 on usage errors', () => {
    for (const args of [[], ['--bogus'], ['a', 'b'], ['--']]) {
      const { status, stderr, stdout } = run(args);
      assert.equal(status, 2, args.join(' '));
      assert.equal(stdout.length, 0);
      assert.match(stderr.toString(), /^qr_cli: /);
    }
  });

  it('exits 65 with the core message on bad text', () => {
    const cases = [
      ['', 'qr_cli: text must not be empty (EMPTY_TEXT)'],
      ['a'.repeat(513), 'qr_cli: text must be <= 512 bytes (TEXT_TOO_LONG)'],
      [Buffer.from([0xff]), 'qr_cli: text must be valid UTF-8 (INVALID_UTF8)'],
    ];
    for (const [input, message] of cases) {
      const { status, stderr, stdout } = run(['-'], input);
      assert.equal(status, 65);
      assert.equal(stdout.length, 0);
      assert.equal(stderr.toString().trim(), message);
    }
  });

  it('--serve answers framed requests in order until stdin closes', async () => {
    const child = spawn(BIN, ['--serve']);
    const texts = ['first', '', '🦀'.repeat(128), 'last'];
    const frames = texts.map((t) => {
      const body = Buffer.from(t);
      const head = Buffer.alloc(4);
      head.writeUInt32BE(body.length);
      return Buffer.concat([head, body]);
    });
    // Split mid-frame to check the worker reassembles its input.
    const all = Buffer.concat(frames);
    child.stdin.write(all.subarray(0, 7));
    setTimeout(() => child.stdin.end(all.subarray(7)), 20);
    const chunks = [];
    child.stdout.on('data', (c) => chunks.push(c));
    const code = await new Promise((resolve) => child.on('exit', resolve));
    assert.equal(code, 0);

    let out = Buffer.concat(chunks);
    const responses = [];
    while (out.length) {
      const len = out.readUInt32BE(1);
      responses.push([out[0], out.subarray(5, 5 + len)]);
      out = out.subarray(5 + len);
    }
    assert.equal(responses.length, 4);
    assert.equal((await decodeQrPng(responses[0][1])).text, 'first');
    assert.deepEqual([responses[1][0], responses[1][1].toString()], [1, 'text must not be empty']);
    assert.equal((await decodeQrPng(responses[2][1])).text, texts[2]);
    assert.ok(responses[3][1].equals(run(['last']).stdout));
  });
});
