// ESM entry of @qr-toolkit/napi: the loader napi-rs generates (index.js,
// CommonJS) re-exported by name, so `import { generateQrCodeSync } from
// '@qr-toolkit/napi'` and `require('@qr-toolkit/napi')` load the same addon.
import { createRequire } from 'node:module';

const binding = createRequire(import.meta.url)('./index.js');

export const { generateQrCode, generateQrCodeSync } = binding;
