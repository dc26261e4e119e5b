#!/usr/bin/env bash
# The addon's two ways to hand a PNG to JS, measured against each other in
# one process: a Buffer V8 copies the bytes into (the default build) and an
# external Buffer over the Vec's own memory (cargo feature external-buffer).
# Both are built here into target/napi-buffer/, then bench/core-curve.js
# times generateQrCodeSync of each, rounds interleaved.
# Usage: bench/napi-buffer.sh   (after `make build`)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=target/napi-buffer
for variant in copied external; do
  features=()
  [ "$variant" = external ] && features=(--features external-buffer)
  (cd qr_napi && npx napi build --platform --release "${features[@]}" \
    --target-dir "../$OUT/target" --output-dir "../$OUT/$variant" --no-js >/dev/null)
done
args=()
for variant in copied external; do
  args+=(--addon "$variant=$(ls "$OUT/$variant"/*.node)")
done
node bench/core-curve.js "${args[@]}"
