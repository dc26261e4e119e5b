// The ffi crate's library loaded with Deno.dlopen (run with --allow-ffi):
// `{{camel}}(input)` gives the output as a Uint8Array, or throws an Error whose
// `status` is the library's (1-4 the core's Error::number, 255 a caught panic)
// and whose message is the core's.
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function loadFfi(libraryPath) {
  const { symbols } = Deno.dlopen(libraryPath, {
    {{snake}}: { parameters: ['buffer', 'usize', 'buffer', 'buffer'], result: 'u32' },
    {{snake}}_free: { parameters: ['pointer', 'usize'], result: 'void' },
  });
  // The library writes the result's pointer and length here: two u64s, reused.
  const out = new BigUint64Array(2);
  const outPtr = out.subarray(0, 1);
  const outLen = out.subarray(1);
  return function {{camel}}(input) {
    const bytes = encoder.encode(input);
    const status = symbols.{{snake}}(bytes, bytes.length, outPtr, outLen);
    const ptr = Deno.UnsafePointer.create(out[0]);
    const len = out[1];
    // A copy: the library's buffer is freed at once.
    const result = new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(ptr, Number(len))).slice();
    symbols.{{snake}}_free(ptr, len);
    if (status === 0) return result;
    throw Object.assign(new Error(decoder.decode(result)), { status });
  };
}
