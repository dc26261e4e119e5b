'use strict';

// A native artifact's platform as napi-rs names it (linux-x64-gnu): the
// calibration's prebuilt identity runs only where it was built.

/** This Node's platform, architecture and, on Linux, C library. */
function platformOf() {
  const linux = process.platform === 'linux';
  // Node reports the glibc it runs on; on musl there is none.
  // (@types/node types the report as a bare object.)
  const report = /** @type {{ header: { glibcVersionRuntime?: string } }} */ (
    linux ? process.report.getReport() : null
  );
  const libc = linux ? (report.header.glibcVersionRuntime ? 'gnu' : 'musl') : null;
  return { platform: process.platform, arch: process.arch, libc };
}

/** `linux-x64-gnu`, `darwin-arm64`. */
const platformName = ({ platform, arch, libc }) => [platform, arch, libc].filter(Boolean).join('-');

module.exports = { platformOf, platformName };
