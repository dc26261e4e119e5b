#!/usr/bin/env bash
# Installs what the build, tests and benchmark need, skipping what is there.
# Safe to run again; `make bench` and `make test` run it first.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '\033[1msetup:\033[0m %s\n' "$*"; }

need() {
  command -v "$1" >/dev/null 2>&1 || { echo "setup: $1 is required (install $2)" >&2; exit 1; }
}
need cargo "Rust from https://rustup.rs"
need node "Node.js >= 20.17"
need npm "npm"

# Debian packages: zbarimg decodes QR codes in the tests, wrk cross-checks the
# benchmark, nginx runs the deploy/ topology (its test and the axum-nginx tier),
# chromium runs node-server's page in test/browser.test.js.
apt_packages=()
command -v zbarimg >/dev/null 2>&1 || apt_packages+=(zbar-tools)
command -v wrk >/dev/null 2>&1 || apt_packages+=(wrk)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || apt_packages+=(nginx)
# chromium: the page's test drives it headless (puppeteer-core, no browser download).
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || apt_packages+=(chromium)
if [ ${#apt_packages[@]} -gt 0 ]; then
  log "apt-get install ${apt_packages[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${apt_packages[@]}" >/dev/null
fi

# npm packages, exactly as locked.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "npm ci"
  npm ci --no-audit --no-fund
fi

# Rust: the Wasm target, and the wasm-bindgen CLI at exactly the version
# Cargo.lock pins (wasm-pack would otherwise try to download it).
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi
# The static qr_server and qr_cli of `make package`.
if ! rustup target list --installed | grep -qx x86_64-unknown-linux-musl; then
  log "rustup target add x86_64-unknown-linux-musl"
  rustup target add x86_64-unknown-linux-musl
fi
wbg_version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$wbg_version" ]; then
  log "cargo install wasm-bindgen-cli $wbg_version (about 4 minutes, once)"
  cargo install --quiet --locked wasm-bindgen-cli --version "$wbg_version" \
    || cargo install --quiet wasm-bindgen-cli --version "$wbg_version"
fi
if ! command -v wasm-pack >/dev/null 2>&1; then
  log "cargo install wasm-pack (about 3 minutes, once)"
  cargo install --quiet --locked wasm-pack || cargo install --quiet wasm-pack
fi
