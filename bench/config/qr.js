'use strict';

// The QR service's benchmark configuration (bench.config.js at the root
// points here, so `node bench/run.js` measures it). A team measuring its own
// service writes a file like this one for `tier-bench --config FILE`
// (create-rust-ladder writes one per function).
const fs = require('node:fs');
const path = require('node:path');
const { TIERS } = require('../../node-server/tiers');
const { FIXTURE, CURVE_LENGTHS, textsOfLength, qrcodePath } = require('./texts');

const ROOT = path.resolve(__dirname, '../..');
const QR_SERVER_BIN = process.env.QR_SERVER_BIN || path.join(ROOT, 'target/release/qr_server');
const node = (exe, script, ...args) => [exe, path.join(ROOT, script), ...args];

const texts = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')).urls;
// The report groups tiers by rung (node-server/tiers/index.js `level`).
const RUNGS = ['0: JavaScript', '1: a Rust process per call or pool', '2: Wasm', '3: N-API addon', '4: a Rust service'];

/** @type {import('../lib/tier-config').BenchConfig} */
module.exports = {
  title: 'QR-code tiers',
  baseline: 'js',
  // What a reader on another Node line gets: the addon in express against
  // the same call behind bare node:http.
  crossLine: ['napi', 'napi-node-http'],
  // Bun and Deno: the rungs that load Rust into the runtime (the addon, the
  // C ABI through each runtime's own FFI, Wasm) and the bare reference.
  crossRuntime: ['napi', 'ffi', 'wasm', 'napi-node-http'],
  // The report's "What the framework costs": the same addon call behind
  // express in node-server and behind bare node:http.
  frameworkCost: {
    framework: 'napi',
    bare: 'napi-node-http',
    what:
      'The same `generateQrCodeSync` call behind express in node-server (`napi`, with its guards) ' +
      'and behind bare `node:http` (`napi-node-http`, one process, no guards).',
  },
  tiers: [
    ...TIERS.map((tier) => ({
      name: tier.name,
      group: RUNGS[tier.level],
      // qr_server alone for `axum`; node-server for every other tier.
      command:
        tier.server === 'qr_server'
          ? ({ env }) => [env?.QR_SERVER_BIN ?? QR_SERVER_BIN, '--port', '0']
          : ({ workers, node: exe }) =>
              node(
                exe,
                'node-server/server.js',
                '--tier',
                tier.name,
                '--port',
                '0',
                '--workers',
                String(workers),
                '--event-loop-route',
              ),
      eventLoop: tier.server !== 'qr_server',
      singleProcess: tier.server === 'qr_server',
    })),
    {
      name: 'axum-nginx',
      reference: 'deploy/nginx.conf in front of one qr_server; memory and CPU are nginx + qr_server',
      group: 'references',
      command: ({ node: exe }) => node(exe, 'deploy/start.js', '--port', '0', '--qr-servers', '1', '--tier', 'none'),
      singleProcess: true,
      // deploy/start.js starts the servers and serves nothing itself.
      launcher: true,
    },
    {
      name: 'napi-node-http',
      reference: 'the addon behind bare node:http, bench/reference/napi-node-http.js',
      group: 'references',
      command: ({ node: exe }) => node(exe, 'bench/reference/napi-node-http.js', '--port', '0'),
      singleProcess: true,
    },
  ],
  notes: {
    workers: 'node-server worker processes (`--workers`); `axum`, `axum-nginx` and `napi-node-http` ignore it',
    body: 'the PNG, for the QR tiers',
    tree: 'node-server and its `qr_cli` workers',
  },
  // The tiers that hold state across requests in a long-lived process or child.
  soakTiers: ['cli-pool', 'wasm-raw', 'napi-async'],
  requests: {
    description: `the ${texts.length} URLs of test/fixtures/texts.json`,
    paths: texts.map(qrcodePath),
    lengths: CURVE_LENGTHS,
    // Eight URL-like texts of exactly `length` bytes.
    ofLength: (length) => textsOfLength(texts, length).map(qrcodePath),
  },
};
