'use strict';

// Tier 3: qr_ffi, the core behind a plain C ABI, called through the
// runtime's own FFI (node:ffi, bun:ffi, Deno.dlopen) on the event loop: the
// `napi` tier without napi-rs.
const { createEventLoopTier } = require('tier-adapters');
const { loadQrFfi } = require('../lib/qr-ffi');

async function createTier({ maxQueue, deferTurn } = {}) {
  const generateQrCode = loadQrFfi();
  return createEventLoopTier((text) => generateQrCode(text), { maxQueue, deferTurn });
}

module.exports = { createTier };
