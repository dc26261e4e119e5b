// The ffi crate's library loaded with Bun's bun:ffi: `{{camel}}(input)` gives
// the output as a Buffer, or throws an Error whose `status` is the library's
// (1-4 the core's Error::number, 255 a caught panic) and whose message is the core's.
import { dlopen, toBuffer } from 'bun:ffi';

export function loadFfi(libraryPath) {
  const { symbols } = dlopen(libraryPath, {
    {{snake}}: { args: ['ptr', 'u64', 'ptr', 'ptr'], returns: 'u32' },
    {{snake}}_free: { args: ['ptr', 'u64'], returns: 'void' },
  });
  // The library writes the result's pointer and length here: two u64s, reused.
  const out = new BigUint64Array(2);
  const outPtr = out.subarray(0, 1);
  const outLen = out.subarray(1);
  return function {{camel}}(input) {
    const bytes = Buffer.from(input, 'utf8');
    // An empty Buffer has no address to pass: null, with length 0.
    const status = symbols.{{snake}}(bytes.length ? bytes : null, bytes.length, outPtr, outLen);
    const ptr = Number(out[0]);
    const len = Number(out[1]);
    // A copy: the library's buffer is freed at once. toBuffer refuses a length of 0.
    const result = len ? Buffer.from(toBuffer(ptr, 0, len)) : Buffer.alloc(0);
    symbols.{{snake}}_free(ptr, len);
    if (status === 0) return result;
    throw Object.assign(new Error(result.toString('utf8')), { status });
  };
}
