'use strict';

// Loads the napi-rs addon package, or fails with one line naming what is missing.
function loadAddon() {
  try {
    return require('@qr-toolkit/napi');
  } catch (cause) {
    // napi-rs's loader takes an explicit .node path from this variable.
    const override = process.env.NAPI_RS_NATIVE_LIBRARY_PATH;
    const what = override ? `qr_napi addon ${override} (NAPI_RS_NATIVE_LIBRARY_PATH)` : 'qr_napi addon (qr_napi/*.node)';
    throw new Error(`${what} cannot be loaded: run \`npm run build -w qr_napi\` (or \`make build\`)`, { cause });
  }
}

module.exports = { loadAddon };
