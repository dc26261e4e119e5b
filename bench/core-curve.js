'use strict';

// The core through each in-process binding, as a Node caller pays for it:
// `generateQrCodeSync` of the napi addon and `generateQrCode` of both Wasm
// builds, on the same text sets and text lengths as `cargo bench -p qr_lib`
// (qr_lib/benches/core.rs). Calls alternate between the bindings in rounds so
// a noisy neighbour slows all of them alike; each figure is a median.
//
//   node bench/core-curve.js                    # napi, wasm, wasm-raw
//   node bench/core-curve.js --addon before=a.node --addon after=b.node
//   node bench/core-curve.js --wasm-raw scalar=a.wasm --wasm-raw simd128=b.wasm
//   node bench/core-curve.js --wasm before=a/qr_wasm.js --wasm after=b/qr_wasm.js
//   node bench/core-curve.js --rounds 1 --round-ms 5   # a smoke run (the test)
//   node bench/core-curve.js --addon before=a.node --addon after=b.node --different-bytes
//
// `--addon NAME=FILE` replaces the addon column(s) with the given .node
// builds (bench/core-versus.sh compares the core at two commits);
// `--wasm-raw NAME=FILE` does the same with raw-ABI Wasm modules
// (bench/wasm-simd.sh compares builds with and without SIMD128), and
// `--wasm NAME=FILE` with wasm-bindgen packages. Builds must give the same
// bytes, unless `--different-bytes` (a change that draws another image, such
// as another module size): then each build's PNG bytes get a column.
const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { loadAddon } = require('../node-server/lib/addon');
const { QrWasmRaw } = require('../node-server/lib/qr-wasm-raw');
const { wasmFile } = require('../node-server/lib/wasm-files');

const { CURVE_LENGTHS, textsOfLength } = require('./config/texts');
const { median } = require('./lib/stats');
const texts = require('../test/fixtures/texts.json');

const rawWasm = (file) => new QrWasmRaw(new WebAssembly.Module(fs.readFileSync(file)));

function bindings(addonArgs, rawArgs, wasmArgs) {
  const list = [];
  const defaults = addonArgs.length === 0 && rawArgs.length === 0 && wasmArgs.length === 0;
  if (defaults) {
    list.push(['napi', loadAddon().generateQrCodeSync]);
  }
  for (const arg of addonArgs) {
    const [name, file] = arg.split('=');
    const module = { exports: {} };
    process.dlopen(module, path.resolve(file));
    list.push([name, module.exports.generateQrCodeSync]);
  }
  for (const arg of rawArgs) {
    const [name, file] = arg.split('=');
    const raw = rawWasm(file);
    list.push([name, (text) => raw.generateQrCode(text)]);
  }
  for (const arg of wasmArgs) {
    const [name, file] = arg.split('=');
    const wasm = require(path.resolve(file));
    list.push([name, (text) => wasm.generateQrCode(text)]);
  }
  if (defaults) {
    const wasm = require(wasmFile('pkg/qr_wasm.js'));
    list.push(['wasm', (text) => wasm.generateQrCode(text)]);
    const raw = rawWasm(wasmFile('pkg-raw/qr_wasm_raw.wasm'));
    list.push(['wasm-raw', (text) => raw.generateQrCode(text)]);
  }
  return list;
}

/** Median microseconds per call of each binding over `set`, rounds interleaved. */
function timeAll(list, set, { rounds, roundMs }) {
  const samples = list.map(() => []);
  for (let round = 0; round < rounds; round++) {
    list.forEach(([, fn], i) => {
      let calls = 0;
      const start = process.hrtime.bigint();
      const end = start + BigInt(roundMs * 1e6);
      let now = start;
      while (now < end) {
        for (const text of set) fn(text);
        calls += set.length;
        now = process.hrtime.bigint();
      }
      samples[i].push(Number(now - start) / 1e3 / calls);
    });
  }
  return samples.map(median);
}

function meanBytes(fn, set) {
  return set.reduce((sum, text) => sum + fn(text).length, 0) / set.length;
}

function main() {
  const { values } = parseArgs({
    options: {
      addon: { type: 'string', multiple: true, default: [] },
      'wasm-raw': { type: 'string', multiple: true, default: [] },
      wasm: { type: 'string', multiple: true, default: [] },
      rounds: { type: 'string', default: '15' },
      'round-ms': { type: 'string', default: '100' },
      'different-bytes': { type: 'boolean', default: false },
    },
  });
  const timing = { rounds: Number(values.rounds), roundMs: Number(values['round-ms']) };
  const list = bindings(values.addon, values['wasm-raw'], values.wasm);
  const names = list.map(([name]) => name);
  const urls = texts.urls;
  const all = [...urls, ...Object.values(texts.edge)];
  const long = all.filter((t) => Buffer.byteLength(t) >= 510);
  const sets = [
    ['ten article URLs', urls],
    ['all shared texts', all],
    ['510-512 byte texts', long],
    ...CURVE_LENGTHS.map((len) => [`${len} bytes`, textsOfLength(urls, len)]),
  ];

  // Warm up every binding (JIT, Wasm tier-up, templates), and refuse to
  // compare builds that do not give the same bytes unless told they may not.
  const sameBytes = !values['different-bytes'];
  for (const [, set] of sets) {
    for (const text of set) {
      const [first, ...rest] = list.map(([, fn]) => fn(text));
      const differs = rest.findIndex((png) => !Buffer.from(png).equals(Buffer.from(first)));
      if (sameBytes && differs >= 0) {
        console.error(
          `core-curve: ${list[differs + 1][0]} and ${list[0][0]} give different bytes for ${JSON.stringify(text)}`,
        );
        process.exit(1);
      }
    }
  }

  console.log(
    `Node ${process.version}; us per call, median of ${timing.rounds} interleaved rounds of ${timing.roundMs} ms\n`,
  );
  const byteColumns = sameBytes ? [list[0]] : list;
  const bytesHead = sameBytes ? ['PNG bytes'] : names.map((n) => `${n} PNG bytes`);
  console.log(`| texts | n | ${[...names.map((n) => `${n} us/call`), ...bytesHead].join(' | ')} |`);
  console.log(`|---|---:|${[...names, ...bytesHead].map(() => '---:|').join('')}`);
  for (const [name, set] of sets) {
    const us = timeAll(list, set, timing).map((u) => u.toFixed(1));
    const bytes = byteColumns.map(([, fn]) => meanBytes(fn, set).toFixed(0));
    console.log(`| ${name} | ${set.length} | ${[...us, ...bytes].join(' | ')} |`);
  }
}

main();
