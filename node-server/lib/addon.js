'use strict';

const fs = require('node:fs');

// Loads the napi-rs addon package, or fails with one line naming what is missing.
function loadAddon() {
  // napi-rs's loader takes an explicit .node path from this variable.
  const override = process.env.NAPI_RS_NATIVE_LIBRARY_PATH;
  const what = override ? `qr_napi addon ${override} (NAPI_RS_NATIVE_LIBRARY_PATH)` : 'qr_napi addon (qr_napi/*.node)';
  const fix = 'run `npm run build -w qr_napi` (or `make build`)';
  // Checked first: napi-rs's loader would fall back to a WASI build, which
  // prints an experimental-feature warning before this fails anyway.
  if (override && !fs.existsSync(override)) throw new Error(`${what} cannot be loaded: no such file; ${fix}`);
  let addon;
  try {
    addon = require('@qr-toolkit/napi');
  } catch (cause) {
    throw new Error(`${what} cannot be loaded: ${fix}`, { cause });
  }
  // Where no native binary loads, napi-rs's loader falls back to the WASI
  // build (`make package` builds one). The napi tiers promise the native
  // addon, so that is a failure here unless it was asked for.
  if (addon.__napiBindingTarget !== 'native' && !process.env.NAPI_RS_FORCE_WASI) {
    throw new Error(
      `${what} cannot be loaded, only its ${addon.__napiBindingTarget} build ` +
        `(set NAPI_RS_FORCE_WASI=true to run that): ${fix}`,
    );
  }
  return addon;
}

module.exports = { loadAddon };
