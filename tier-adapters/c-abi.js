'use strict';

// A library behind a plain C ABI, loaded by the runtime's own FFI: node:ffi
// (Node 26), bun:ffi, Deno.dlopen (run with --allow-ffi). What napi-rs's
// generated glue does for an addon, done by the runtime from a table of two
// signatures. The ABI (create-rust-ladder's ffi/src/boundary.rs):
//
//   u32 call(const u8 *input, usize len, u8 **out_ptr, usize *out_len)
//   void free(u8 *ptr, usize len)
//
// `call` returns 0 with the output, or a non-zero status with a UTF-8
// message; either way it hands over a buffer the library owns, which is
// copied, then given back to `free`. Nothing checks these signatures against
// the library: a wrong name fails to load, a wrong type corrupts memory.
const { isBuiltin } = require('node:module');
const { Buffer } = require('node:buffer');

// Bun's and Deno's FFI, typed by neither @types/node nor this package: reached
// through a module name and the global object that tsc does not resolve.
const BUN_FFI = 'bun:ffi';
const RUNTIME_GLOBALS = /** @type {any} */ (globalThis);

/** Default for a non-zero status: an Error with the library's message and that `status`. */
const statusError = (status, message) => Object.assign(new Error(message), { status });

/** Why this runtime cannot load a C-ABI library for `name` (who needs it), or null. */
function cAbiUnavailable(name = 'a C-ABI library') {
  if (process.versions.bun || process.versions.deno || isBuiltin('node:ffi')) return null;
  const fix = 'run Node 26 or later, without --no-experimental-ffi';
  return `${name} needs node:ffi, which Node ${process.version} does not have: ${fix}`;
}

/**
 * `(input: string) => Buffer` calling `library`'s symbols `call` and `free`.
 * A non-zero status throws `decodeError(status, message)`. On a Node with
 * no node:ffi it throws `cAbiUnavailable(name)`.
 */
function loadCAbi({ library, call, free, name, decodeError = statusError }) {
  const run = runtimeLoader(library, call, free, name);
  return function callLibrary(input) {
    const [status, output] = run(Buffer.from(input, 'utf8'));
    if (status === 0) return output;
    throw decodeError(status, output.toString('utf8'));
  };
}

/** `(bytes) => [status, output]` with this runtime's FFI. */
function runtimeLoader(library, call, free, name) {
  if (process.versions.bun) return loadWithBun(library, call, free);
  if (process.versions.deno) return loadWithDeno(library, call, free);
  const why = cAbiUnavailable(name);
  if (why) throw new Error(why);
  return loadWithNode(library, call, free);
}

function loadWithNode(file, call, free) {
  // Required only here: loading node:ffi prints an experimental-feature warning.
  const ffi = require('node:ffi');
  const { functions } = ffi.dlopen(file, {
    [call]: { return: 'u32', arguments: ['buffer', 'u64', 'buffer', 'buffer'] },
    [free]: { return: 'void', arguments: ['pointer', 'u64'] },
  });
  // The library writes the output's pointer and length here: two u64s, reused.
  const out = Buffer.alloc(16);
  const outPtr = out.subarray(0, 8);
  const outLen = out.subarray(8);
  return (bytes) => {
    const status = functions[call](bytes, BigInt(bytes.length), outPtr, outLen);
    // Native byte order: little-endian on every target the packages build.
    const ptr = out.readBigUInt64LE(0);
    const len = out.readBigUInt64LE(8);
    // A copy: the library's buffer is freed at once.
    const output = ffi.toBuffer(ptr, Number(len), true);
    functions[free](ptr, len);
    return [status, output];
  };
}

/** Where the library writes the output's pointer and length: two u64s, reused. */
function outSlots() {
  const out = new BigUint64Array(2);
  return { out, outPtr: out.subarray(0, 1), outLen: out.subarray(1) };
}

function loadWithBun(file, call, free) {
  const { dlopen, toBuffer } = require(BUN_FFI);
  const { symbols } = dlopen(file, {
    [call]: { args: ['ptr', 'u64', 'ptr', 'ptr'], returns: 'u32' },
    [free]: { args: ['ptr', 'u64'], returns: 'void' },
  });
  const { out, outPtr, outLen } = outSlots();
  return (bytes) => {
    // bun:ffi refuses a pointer to no bytes: the library takes null for none.
    const status = symbols[call](bytes.length ? bytes : null, bytes.length, outPtr, outLen);
    const ptr = Number(out[0]);
    const len = Number(out[1]);
    // toBuffer refuses a length of 0.
    const output = len ? Buffer.from(toBuffer(ptr, 0, len)) : Buffer.alloc(0);
    symbols[free](ptr, len);
    return [status, output];
  };
}

function loadWithDeno(file, call, free) {
  const { Deno } = RUNTIME_GLOBALS;
  const { symbols } = Deno.dlopen(file, {
    [call]: { parameters: ['buffer', 'usize', 'buffer', 'buffer'], result: 'u32' },
    [free]: { parameters: ['pointer', 'usize'], result: 'void' },
  });
  const { out, outPtr, outLen } = outSlots();
  return (bytes) => {
    const status = symbols[call](bytes, bytes.length, outPtr, outLen);
    const ptr = Deno.UnsafePointer.create(out[0]);
    const len = out[1];
    const output = Buffer.allocUnsafe(Number(len));
    if (len > 0n) new Deno.UnsafePointerView(ptr).copyInto(output);
    symbols[free](ptr, len);
    return [status, output];
  };
}

module.exports = { loadCAbi, cAbiUnavailable };
