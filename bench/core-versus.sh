#!/usr/bin/env bash
# The core at another commit against this tree's, as a Node caller pays for
# it: both built here (the addon as a plain cargo cdylib, the raw-ABI Wasm
# module through wasm-opt as scripts/build-wasm.sh does), then
# bench/core-curve.js times all four in one process, rounds interleaved (it
# first checks that they give the same bytes; with --different-bytes after
# the commit, for a change that draws another image, it shows each build's
# PNG bytes instead). Each build uses its own
# commit's settings (.cargo/config.toml): the other commit is checked out
# outside this tree so that this tree's config does not apply to it.
# Usage: bench/core-versus.sh COMMIT [--different-bytes]   (after `make build`)
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: bench/core-versus.sh COMMIT}
OUT="$PWD/target/core-versus"
WASM_OPT=(node_modules/.bin/wasm-opt -O3 --enable-bulk-memory --enable-bulk-memory-opt
  --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals
  --enable-reference-types --enable-multivalue --enable-simd)
tree=$(mktemp -d)
trap 'git worktree remove --force "$tree"' EXIT
git worktree add --quiet --detach "$tree" "$base"
mkdir -p "$OUT"
build() { # source-tree label
  # The raw ABI is the crate qr_wasm_raw; before it, qr_wasm without its default features.
  local raw=(-p qr_wasm_raw) module=qr_wasm_raw
  [ -f "$1/qr_wasm_raw/Cargo.toml" ] || { raw=(-p qr_wasm --no-default-features); module=qr_wasm; }
  (cd "$1" &&
    CARGO_TARGET_DIR="$OUT/target-$2" cargo build --quiet --release -p qr_napi &&
    CARGO_TARGET_DIR="$OUT/target-$2" cargo build --quiet --release "${raw[@]}" --target wasm32-unknown-unknown)
  cp "$OUT/target-$2/release/libqr_napi.so" "$OUT/$2.node"
  "${WASM_OPT[@]}" "$OUT/target-$2/wasm32-unknown-unknown/release/$module.wasm" -o "$OUT/$2.wasm"
}
build "$tree" before
build "$PWD" after
echo "before: $(git rev-parse --short "$base"); after: this tree, $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- qr_lib qr_napi qr_wasm_raw || echo ' + changes')"
node bench/core-curve.js --addon "napi-before=$OUT/before.node" --addon "napi-after=$OUT/after.node" \
  --wasm-raw "wasm-raw-before=$OUT/before.wasm" --wasm-raw "wasm-raw-after=$OUT/after.wasm" "${@:2}"
