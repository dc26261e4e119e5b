#!/usr/bin/env bash
# Builds both Wasm crates and runs wasm-opt (npm `binaryen`) on each module:
#   qr_wasm/pkg/          qr_wasm, wasm-pack --target nodejs package (tier `wasm`)
#   qr_wasm/pkg-web/      qr_wasm, wasm-pack --target web package (node-server's page, in the browser)
#   qr_wasm/pkg-raw/      qr_wasm_raw.wasm from qr_wasm_raw: no imports, raw ABI (tier `wasm-raw`)
# node-server reads all three from one directory (qr_wasm/, or $QR_WASM_DIR).
# Prints each module's size before and after wasm-opt.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_OPT=(node_modules/.bin/wasm-opt -O3 --enable-bulk-memory --enable-bulk-memory-opt
  --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals
  --enable-reference-types --enable-multivalue --enable-simd)

optimize() { # file label
  local before after
  before=$(stat -c %s "$1")
  "${WASM_OPT[@]}" "$1" -o "$1.opt"
  mv "$1.opt" "$1"
  after=$(stat -c %s "$1")
  printf 'build-wasm: %-10s %7d bytes, %7d after wasm-opt -O3\n' "$2" "$before" "$after"
}

# wasm-pack's own wasm-opt step is off (qr_wasm/Cargo.toml): it would try to download binaryen.
wasm-pack --log-level warn build qr_wasm --release --target nodejs --out-dir pkg -- --locked
optimize qr_wasm/pkg/qr_wasm_bg.wasm wasm
# The same module for browsers: only the JS glue differs (ES module, `await init()`).
wasm-pack --log-level warn build qr_wasm --release --target web --out-dir pkg-web -- --locked
optimize qr_wasm/pkg-web/qr_wasm_bg.wasm wasm-web

# The raw module: the same core without wasm-bindgen (crate qr_wasm_raw).
cargo build --quiet --locked -p qr_wasm_raw --release --target wasm32-unknown-unknown
mkdir -p qr_wasm/pkg-raw
cp target/wasm32-unknown-unknown/release/qr_wasm_raw.wasm qr_wasm/pkg-raw/qr_wasm_raw.wasm
optimize qr_wasm/pkg-raw/qr_wasm_raw.wasm wasm-raw
