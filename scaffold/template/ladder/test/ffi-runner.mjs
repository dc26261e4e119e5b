// Runs under Bun or Deno (test/parity.test.js starts it, as the QR service's
// tests do): loads a C-ABI library with that runtime's own FFI (tier-adapters'
// loadCAbi, as js/ffi.js does) and prints, for each input of the JSON file
// given, its output in base64 or the library's status and message: one JSON
// array on stdout. Arguments: the library, its call and free symbols, the file.
import fs from 'node:fs';
import { Buffer } from 'node:buffer';
import { createRequire } from 'node:module';

const { loadCAbi } = createRequire(import.meta.url)('tier-adapters');
const [library, call, free, inputsFile] = globalThis.Deno ? Deno.args : process.argv.slice(2);
const callLibrary = loadCAbi({ library, call, free });

const results = JSON.parse(fs.readFileSync(inputsFile, 'utf8')).map((input) => {
  try {
    return { output: Buffer.from(callLibrary(input)).toString('base64') };
  } catch (err) {
    return { status: err.status, message: err.message };
  }
});
console.log(JSON.stringify(results));
