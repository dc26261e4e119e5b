#!/usr/bin/env bash
# Builds every artifact people install into dist/ (after `make build`):
#   qr-toolkit-napi-VERSION.tgz   the addon package (CJS + ESM + types)
#   qr-toolkit-wasm-VERSION.tgz   the Wasm package: nodejs and web builds behind `exports`
#   qr_server-x86_64-unknown-linux-musl, qr_cli-x86_64-unknown-linux-musl
#                                 static executables: one file to deploy
# Prints each artifact's size.
set -euo pipefail
cd "$(dirname "$0")/.."

MUSL=x86_64-unknown-linux-musl
rm -rf dist
mkdir -p dist

(cd qr_napi && npm pack --silent --pack-destination ../dist >/dev/null)

# The Wasm package: the two wasm-pack builds (scripts/build-wasm.sh) side by side.
stage=target/npm/qr-wasm
rm -rf "$stage"
mkdir -p "$stage/node" "$stage/web"
cp qr_wasm/npm/package.json qr_wasm/npm/README.md qr_wasm/npm/node.mjs "$stage/"
cp qr_wasm/pkg/qr_wasm.js qr_wasm/pkg/qr_wasm.d.ts qr_wasm/pkg/qr_wasm_bg.wasm "$stage/node/"
cp qr_wasm/pkg-web/qr_wasm.js qr_wasm/pkg-web/qr_wasm.d.ts qr_wasm/pkg-web/qr_wasm_bg.wasm "$stage/web/"
# The web glue is an ES module: Node must read it as one.
echo '{ "type": "module" }' > "$stage/web/package.json"
(cd "$stage" && npm pack --silent --pack-destination "$OLDPWD/dist" >/dev/null)

# Pure Rust down to the syscalls: Rust's self-contained musl target links a
# static executable with no C toolchain beyond the system linker.
cargo build --quiet --release --target "$MUSL" -p qr_server -p qr_cli
for bin in qr_server qr_cli; do
  cp "target/$MUSL/release/$bin" "dist/$bin-$MUSL"
done

for f in dist/*; do
  printf 'package: %-45s %9d bytes\n' "$f" "$(stat -c %s "$f")"
done
