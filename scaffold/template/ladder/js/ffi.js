'use strict';

// The ffi crate (ffi/src/lib.rs: the core behind a plain C ABI) loaded with
// the runtime's own FFI (node:ffi on Node 26, bun:ffi, Deno.dlopen): the
// `napi` tier without napi-rs.
const { loadCAbi, cAbiUnavailable } = require('tier-adapters');
const { coreError } = require('./errors');

// What cargo names the ffi crate's library on this platform.
const LIBRARY_FILE =
  { darwin: 'libladder_example_ffi.dylib', win32: 'ladder_example_ffi.dll' }[process.platform] ??
  'libladder_example_ffi.so';
// The library's two symbols (ffi/src/lib.rs): a wrong name fails to load.
const SYMBOLS = { call: 'ladder_example', free: 'ladder_example_free' };

/** Why this runtime cannot serve the ffi tier, or null. */
const unsupported = () => cAbiUnavailable('tier ffi');

/** `ladderExample(input) -> Buffer` from the library `file`, throwing the core's errors as the other tiers do. */
const loadFfi = (file) => loadCAbi({ library: file, ...SYMBOLS, name: 'tier ffi', decodeError: coreError });

module.exports = { loadFfi, unsupported, LIBRARY_FILE, SYMBOLS };
