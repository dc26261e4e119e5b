// Types of the ESM entry (index.mjs): the same functions as index.d.ts.
export { generateQrCode, generateQrCodeSync } from './index.js';
