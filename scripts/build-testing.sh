#!/usr/bin/env bash
# Builds the test-only variants of every Rust artifact into target/testing/,
# with the `testing` feature: the text qr_lib::PANIC_TEXT makes the core panic,
# so the tests can prove each tier answers a panic or a Wasm trap with a 500
# and keeps serving. Nothing here is packed or shipped: the artifacts in
# target/release, qr_napi/ and qr_wasm/pkg* are built without the feature.
#   target/testing/testing/qr_cli, qr_server, libqr_ffi.so
#   target/testing/napi/qr-napi.<platform>.node
#   target/testing/wasm/pkg/ (qr_wasm, wasm-pack, nodejs) and wasm/pkg-raw/qr_wasm_raw.wasm (qr_wasm_raw)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=target/testing

cargo build --quiet --locked --profile testing --target-dir "$OUT" -p qr_cli -p qr_server -p qr_ffi \
  --features qr_cli/testing,qr_server/testing,qr_ffi/testing

(cd qr_napi && npx napi build --platform --profile testing --features testing \
  --target-dir "../$OUT" --output-dir "../$OUT/napi" --no-js --dts index.d.ts -- --locked >/dev/null)

CARGO_TARGET_DIR="$PWD/$OUT" wasm-pack --log-level warn build qr_wasm --profile testing --no-opt --target nodejs \
  --out-dir "../$OUT/wasm/pkg" -- --locked --features testing
cargo build --quiet --locked -p qr_wasm_raw --profile testing --target wasm32-unknown-unknown \
  --features testing --target-dir "$OUT"
mkdir -p "$OUT/wasm/pkg-raw"
cp "$OUT/wasm32-unknown-unknown/testing/qr_wasm_raw.wasm" "$OUT/wasm/pkg-raw/qr_wasm_raw.wasm"
echo "build-testing: test-only artifacts in $OUT"
