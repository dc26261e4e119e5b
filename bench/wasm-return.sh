#!/usr/bin/env bash
# The wasm-bindgen package's two ways to hand a PNG to JS, measured against
# each other in one process: a Vec<u8> that the generated glue copies out of
# Wasm memory and frees (the shipped build), and a Uint8Array that Rust
# builds through js-sys (cargo feature js-array-return). Both are built here
# with wasm-pack into target/wasm-return/, through wasm-opt as
# scripts/build-wasm.sh does, then bench/core-curve.js times each
# package's generateQrCode, rounds interleaved.
# Usage: bench/wasm-return.sh   (after `make build`)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="$PWD/target/wasm-return"
WASM_OPT=(node_modules/.bin/wasm-opt -O3 --enable-bulk-memory --enable-bulk-memory-opt
  --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals
  --enable-reference-types --enable-multivalue --enable-simd)
args=()
for variant in vec js-array; do
  features=()
  [ "$variant" = js-array ] && features=(--features js-array-return)
  CARGO_TARGET_DIR="$OUT/target" wasm-pack --log-level warn build qr_wasm --release \
    --target nodejs --out-dir "$OUT/$variant" -- "${features[@]}"
  "${WASM_OPT[@]}" "$OUT/$variant/qr_wasm_bg.wasm" -o "$OUT/$variant/qr_wasm_bg.wasm"
  args+=(--wasm "$variant=$OUT/$variant/qr_wasm.js")
done
node bench/core-curve.js "${args[@]}"
