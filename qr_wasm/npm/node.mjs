// ESM entry for Node: wasm-pack's `--target nodejs` build (CommonJS; it
// instantiates the module synchronously on load), re-exported by name.
import { createRequire } from 'node:module';

export const { generateQrCode } = createRequire(import.meta.url)('./node/qr_wasm.js');
