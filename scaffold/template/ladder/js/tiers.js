'use strict';

// One factory per tier, each a few lines on tier-adapters. Every factory
// returns `{ run(input, { signal }) -> Promise<Buffer>, close() }`.
const path = require('node:path');
const fs = require('node:fs');
const {
  createEventLoopTier,
  createThreadPoolTier,
  createSpawnTier,
  createStdioPoolTier,
  loadWasmBindgen,
  childFailed,
} = require('tier-adapters');
const reference = require('./reference');
const { coreError } = require('./errors');
const ffi = require('./ffi');

const HERE = path.resolve(__dirname, '..');
const RELEASE = path.resolve(process.env.CARGO_TARGET_DIR ?? path.join(HERE, 'target'), 'release');
const CLI = path.join(RELEASE, 'ladder_example_cli');
const FFI_LIBRARY = path.join(RELEASE, ffi.LIBRARY_FILE);
const EXIT_BAD_INPUT = 65;
const STDERR_LINE = /^ladder_example_cli: (.*) \(([A-Z0-9_]+)\)$/m;
const THREADS = Number(process.env.UV_THREADPOOL_SIZE) || 4;

function built(file, how) {
  if (!fs.existsSync(file)) throw new Error(`${file} not found: ${how}`);
  return file;
}
const BUILD = 'run `npm run ladder-example:build`';
const cli = () => built(CLI, BUILD);
const addon = () => require(built(path.join(HERE, 'napi/index.js'), BUILD));
const wrapCoreError = (err) => (err.code ? coreError(err.code, err.message) : err);

const TIERS = {
  js: ({ maxQueue, deferTurn }) =>
    createEventLoopTier((input) => reference.ladderExample(input), { maxQueue, deferTurn }),
  cli: ({ maxQueue }) =>
    createSpawnTier({
      command: cli(),
      args: ['-'],
      name: 'ladder_example_cli',
      maxQueue,
      decodeFailure: (exit) => {
        const line = STDERR_LINE.exec(exit.stderr);
        return exit.code === EXIT_BAD_INPUT && line ? coreError(line[2], line[1]) : childFailed(exit);
      },
    }),
  'cli-pool': ({ maxQueue }) =>
    createStdioPoolTier({
      command: cli(),
      args: ['--serve'],
      name: 'ladder_example_cli',
      maxQueue,
      decodeError: (status, payload) => coreError(status, payload.toString('utf8')),
    }),
  wasm: ({ maxQueue, deferTurn }) => {
    const glue = built(path.join(HERE, 'wasm/pkg/ladder_example_wasm.js'), BUILD);
    // A trap loads the module afresh: what it left behind is gone.
    const call = loadWasmBindgen(glue, 'ladder_example_wasm');
    return createEventLoopTier(
      (input) => {
        let out;
        try {
          out = call((wasm) => wasm.ladderExample(input));
        } catch (err) {
          throw wrapCoreError(err);
        }
        return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
      },
      { maxQueue, deferTurn },
    );
  },
  napi: ({ maxQueue, deferTurn }) => {
    const napi = addon();
    return createEventLoopTier(
      (input) => {
        try {
          return napi.ladderExampleSync(input);
        } catch (err) {
          throw wrapCoreError(err);
        }
      },
      { maxQueue, deferTurn },
    );
  },
  // Needs the runtime's own FFI (node:ffi on Node 26, bun:ffi, Deno.dlopen): `unsupported('ffi')` says so.
  ffi: ({ maxQueue, deferTurn }) => {
    const callLibrary = ffi.loadFfi(built(FFI_LIBRARY, BUILD));
    return createEventLoopTier((input) => callLibrary(input), { maxQueue, deferTurn });
  },
  'napi-async': ({ maxQueue }) => {
    const napi = addon();
    return createThreadPoolTier(
      (input) => napi.ladderExample(input).catch((err) => Promise.reject(wrapCoreError(err))),
      {
        concurrency: THREADS * 16,
        maxQueue,
      },
    );
  },
};

// What a runtime must have to serve a tier, beyond the build.
const UNSUPPORTED = { ffi: ffi.unsupported };

/** Why this runtime cannot serve tier `name`, or null. */
function unsupported(name) {
  return UNSUPPORTED[name]?.() ?? null;
}

/** @param {string} name @param {{ maxQueue?: number, deferTurn?: () => boolean }} [options] */
function createTier(name, { maxQueue = 512, deferTurn } = {}) {
  const create = TIERS[name];
  if (!create) throw new Error(`unknown tier "${name}" (one of: ${Object.keys(TIERS).join(', ')})`);
  const why = unsupported(name);
  if (why) throw new Error(why);
  return create({ maxQueue, deferTurn });
}

module.exports = { createTier, unsupported, tierNames: Object.keys(TIERS), FFI_LIBRARY };
