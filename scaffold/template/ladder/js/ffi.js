'use strict';

// The ffi crate (ffi/src/lib.rs: the core behind a plain C ABI) loaded with
// Node's own node:ffi from a table of two signatures: the `napi` tier without
// napi-rs. ffi/js/ loads the same library with bun:ffi and Deno.dlopen.
const { isBuiltin } = require('node:module');
const { coreError } = require('./errors');

// What cargo names the ffi crate's library on this platform.
const LIBRARY_FILE = { darwin: 'lib{{snake}}_ffi.dylib', win32: '{{snake}}_ffi.dll' }[process.platform]
  ?? 'lib{{snake}}_ffi.so';
// ffi/src/lib.rs: PANIC, a panic caught at the boundary.
const PANIC = 255;
// Not checked against the library: a wrong type here corrupts memory instead of throwing.
const SIGNATURES = {
  {{snake}}: { return: 'u32', arguments: ['buffer', 'u64', 'buffer', 'buffer'] },
  {{snake}}_free: { return: 'void', arguments: ['pointer', 'u64'] },
};

/** Why this runtime cannot serve the ffi tier, or null. */
function unsupported() {
  if (isBuiltin('node:ffi')) return null;
  const runtime = process.versions.bun ? `Bun ${process.versions.bun}`
    : process.versions.deno ? `Deno ${process.versions.deno}` : `Node ${process.version}`;
  return `tier ffi needs node:ffi, which ${runtime} does not have: run Node 26 or later, without --no-experimental-ffi`;
}

/** `{{camel}}(input) -> Buffer` from the library `file`, throwing the core's errors as the other tiers do. */
function loadFfi(file) {
  const why = unsupported();
  if (why) throw new Error(why);
  // Required only here: loading node:ffi prints an experimental-feature warning.
  const ffi = require('node:ffi');
  const { functions } = ffi.dlopen(file, SIGNATURES);
  // The library writes the result's pointer and length here: two u64s, reused.
  const out = Buffer.alloc(16);
  const outPtr = out.subarray(0, 8);
  const outLen = out.subarray(8);
  return function {{camel}}(input) {
    const bytes = Buffer.from(input, 'utf8');
    const status = functions.{{snake}}(bytes, BigInt(bytes.length), outPtr, outLen);
    // Native byte order: little-endian on every target napi's package lists.
    const ptr = out.readBigUInt64LE(0);
    const len = out.readBigUInt64LE(8);
    // A copy: the library's buffer is freed at once.
    const result = ffi.toBuffer(ptr, Number(len), true);
    functions.{{snake}}_free(ptr, len);
    if (status === 0) return result;
    throw coreError(status === PANIC ? 'PANIC' : status, result.toString('utf8'));
  };
}

module.exports = { loadFfi, unsupported, LIBRARY_FILE };
