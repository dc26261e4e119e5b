'use strict';

// Loads the napi-rs addon package, or fails with one line saying how to build it.
function loadAddon() {
  try {
    return require('@qr-toolkit/napi');
  } catch (cause) {
    throw new Error('the qr_napi addon is not built: run `npm run build -w qr_napi` (or `make build`)', { cause });
  }
}

module.exports = { loadAddon };
