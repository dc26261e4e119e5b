'use strict';

// Tier `auto`: napi where its binary loads, else wasm, else js; it says at
// start which it chose and why, and /healthz reports the tier running.
const { describe, it, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startServer, ROOT } = require('../helpers/servers');
const { get, qrcodePath } = require('../helpers/http');
const { decodeQrPng } = require('../helpers/decode');

// Each step hides one artifact the way a machine without it would look:
// napi-rs's loader is pointed at a .node that is not there, the Wasm
// directory at an empty one.
const NO_NODE = { NAPI_RS_NATIVE_LIBRARY_PATH: path.join(os.tmpdir(), 'no-such-addon.node') };
const made = [];
const tempDir = (prefix) => made[made.push(fs.mkdtempSync(path.join(os.tmpdir(), prefix))) - 1];
const noWasm = () => ({ QR_WASM_DIR: tempDir('no-wasm-') });

// A .node that exists but does not load: napi-rs's loader then falls back to
// the WASI build (`make package` builds it), which auto must not take for native.
const broken = () => {
  const file = path.join(tempDir('broken-addon-'), 'qr-napi.node');
  fs.writeFileSync(file, 'not an ELF file');
  return { NAPI_RS_NATIVE_LIBRARY_PATH: file };
};

const CASES = [
  { hidden: 'nothing', env: {}, runs: 'napi', because: null },
  { hidden: 'the .node', env: NO_NODE, runs: 'wasm', because: /napi unavailable: qr_napi addon .*no-such-addon\.node/ },
  {
    hidden: 'the .node (broken, so napi-rs loads its WASI build)',
    env: broken(),
    runs: 'wasm',
    because: new RegExp(
      'napi unavailable: qr_napi addon .*qr-napi\\.node \\(NAPI_RS_NATIVE_LIBRARY_PATH\\) ' +
        'cannot be loaded, only its wasm32-wasi build',
    ),
  },
  {
    hidden: 'the .node and the .wasm',
    env: { ...NO_NODE, ...noWasm() },
    runs: 'js',
    because: /napi unavailable.*; wasm unavailable: .*qr_wasm\.js not found/,
  },
];

describe('tier auto', () => {
  after(() => {
    for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
  });
  it('has the WASI build of the addon to fall back on (make package)', () => {
    assert.ok(fs.existsSync(path.join(ROOT, 'qr_napi/qr-napi.wasm32-wasi.wasm')), 'run `make package`');
  });

  for (const { hidden, env, runs, because } of CASES) {
    it(`runs ${runs} with ${hidden} hidden, says why, and serves`, async () => {
      const server = await startServer(
        process.execPath,
        [path.join(ROOT, 'node-server/server.js'), '--tier', 'auto', '--port', '0'],
        { env },
      );
      try {
        const health = JSON.parse((await get(server.url, '/healthz')).body);
        assert.equal(health.tier, runs);
        // The server's log is JSON lines (docs/operations.md, "Logs").
        const [line] = server
          .output()
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l).message)
          .filter((message) => message.startsWith('node-server: tier auto runs'));
        assert.ok(line?.startsWith(`node-server: tier auto runs ${runs}`), server.output());
        if (because) assert.match(line, because);
        else assert.equal(line, `node-server: tier auto runs ${runs}`);
        assert.match(server.output(), new RegExp(`node-server \\(auto: ${runs}\\) listening on`));
        const text = `auto chose ${runs}`;
        const res = await get(server.url, qrcodePath(text));
        assert.equal(res.status, 200);
        assert.equal((await decodeQrPng(res.body)).text, text);
        const bad = await get(server.url, qrcodePath('x'.repeat(513)));
        assert.deepEqual([bad.status, bad.body.toString()], [400, 'text must be <= 512 bytes']);
      } finally {
        assert.equal(await server.stop(), 0);
      }
    });
  }
});
