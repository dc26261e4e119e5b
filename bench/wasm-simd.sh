#!/usr/bin/env bash
# Does Wasm SIMD128 pay for this core? Builds the raw-ABI module twice into
# target/wasm-simd/, scalar (`-C target-feature=-simd128`) and as shipped
# (`+simd128`, .cargo/config.toml: the mask scoring's hand-written lanes in
# qr_lib/src/symbol/mask/lanes.rs, and whatever rustc vectorises itself), runs both
# through wasm-opt as scripts/build-wasm.sh does, and has
# bench/core-curve.js time them in one process, rounds interleaved (it first
# checks that both give the same bytes). qr_lib/benches/README.md has the
# figures.
# Usage: bench/wasm-simd.sh   (after `make build`)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=target/wasm-simd
WASM_OPT=(node_modules/.bin/wasm-opt -O3 --enable-bulk-memory --enable-bulk-memory-opt
  --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals
  --enable-reference-types --enable-multivalue --enable-simd)
for variant in scalar simd128; do
  flags="-C target-feature=-simd128"
  [ "$variant" = simd128 ] && flags="-C target-feature=+simd128"
  RUSTFLAGS="$flags" cargo build --quiet -p qr_wasm_raw --release --target wasm32-unknown-unknown \
    --target-dir "$OUT/$variant"
  "${WASM_OPT[@]}" "$OUT/$variant/wasm32-unknown-unknown/release/qr_wasm_raw.wasm" -o "$OUT/$variant.wasm"
done
node bench/core-curve.js --wasm-raw "scalar=$OUT/scalar.wasm" --wasm-raw "simd128=$OUT/simd128.wasm"
