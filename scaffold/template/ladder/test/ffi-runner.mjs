// Runs under Bun or Deno (test/parity.test.js starts it): loads the ffi
// crate's library with that runtime's own FFI (ffi/js/) and prints, for each
// input of the JSON file given, its output in base64 or the library's status
// and message: one JSON array on stdout.
import fs from 'node:fs';
import { Buffer } from 'node:buffer';

const [library, inputsFile] = globalThis.Deno ? Deno.args : process.argv.slice(2);
const { loadFfi } = await import(globalThis.Bun ? '../ffi/js/bun.mjs' : '../ffi/js/deno.mjs');
const {{camel}} = loadFfi(library);

const results = JSON.parse(fs.readFileSync(inputsFile, 'utf8')).map((input) => {
  try {
    return { output: Buffer.from({{camel}}(input)).toString('base64') };
  } catch (err) {
    return { status: err.status, message: err.message };
  }
});
console.log(JSON.stringify(results));
