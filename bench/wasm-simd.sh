#!/usr/bin/env bash
# Does Wasm SIMD128 pay for this core? Builds the raw-ABI module twice into
# target/wasm-simd/, scalar (as shipped) and with `-C target-feature=+simd128`
# (rustc then vectorises what loops it can with 128-bit lanes), runs both
# through wasm-opt as scripts/build-wasm.sh does, and has bench/core-curve.js
# time them in one process, rounds interleaved (it first checks that both
# give the same bytes). Measured here it bought nothing (README, "The core"),
# so the shipped builds stay scalar.
# Usage: bench/wasm-simd.sh   (after `make build`)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=target/wasm-simd
WASM_OPT=(node_modules/.bin/wasm-opt -O3 --enable-bulk-memory --enable-bulk-memory-opt
  --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals
  --enable-reference-types --enable-multivalue --enable-simd)
for variant in scalar simd128; do
  flags=""
  [ "$variant" = simd128 ] && flags="-C target-feature=+simd128"
  RUSTFLAGS="$flags" cargo build --quiet -p qr_wasm --release --target wasm32-unknown-unknown \
    --no-default-features --target-dir "$OUT/$variant"
  "${WASM_OPT[@]}" "$OUT/$variant/wasm32-unknown-unknown/release/qr_wasm.wasm" -o "$OUT/$variant.wasm"
done
node bench/core-curve.js --wasm-raw "scalar=$OUT/scalar.wasm" --wasm-raw "simd128=$OUT/simd128.wasm"
