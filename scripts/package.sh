#!/usr/bin/env bash
# Builds every artifact people install into dist/ (after `make build`):
#   qr-toolkit-napi-VERSION.tgz   the addon package (CJS + ESM + types), napi-rs's
#                                 layout: no binary, one optional dependency per platform
#   qr-toolkit-napi-PLATFORM-VERSION.tgz
#                                 the binary for linux-x64-gnu, linux-x64-musl,
#                                 linux-arm64-gnu, linux-arm64-musl, and wasm32-wasi
#                                 (wasm32-wasip1-threads: the fallback anywhere else)
#   qr-toolkit-wasm-VERSION.tgz   the Wasm package: nodejs and web builds behind `exports`
#   qr_server-x86_64-unknown-linux-musl, qr_cli-x86_64-unknown-linux-musl
#                                 static executables: one file to deploy
# Prints each artifact's size.
set -euo pipefail
cd "$(dirname "$0")/.."

MUSL=x86_64-unknown-linux-musl
rm -rf dist
mkdir -p dist

# The addon for every Linux target in qr_napi/package.json: the host's from
# `make build`, the others cross-compiled with zig as linker (napi build -x,
# cargo-zigbuild; scripts/setup.sh installs both).
export PATH="$PATH:$(python3 -c 'import ziglang, os; print(os.path.dirname(ziglang.__file__))')"
for target in x86_64-unknown-linux-musl aarch64-unknown-linux-gnu aarch64-unknown-linux-musl; do
  (cd qr_napi && ../node_modules/.bin/napi build --platform --release --target "$target" -x >/dev/null 2>&1) \
    || { echo "package: napi build --target $target failed" >&2; exit 1; }
done
# The fallback where no native binary fits: the addon for WASI with threads,
# which napi-rs's loader runs on @napi-rs/wasm-runtime (emnapi).
(cd qr_napi && ../node_modules/.bin/napi build --platform --release --target wasm32-wasip1-threads >/dev/null 2>&1) \
  || { echo "package: napi build --target wasm32-wasip1-threads failed" >&2; exit 1; }

# What `napi pre-publish` does before a release, without publishing: the main
# package lists each platform package as an optional dependency (npm installs
# the one whose os/cpu/libc match), and each platform package gets its binary.
stage=target/npm/qr-napi
rm -rf "$stage" target/npm/qr-napi-*
mkdir -p "$stage"
cp qr_napi/package.json qr_napi/index.js qr_napi/index.d.ts qr_napi/index.mjs qr_napi/index.d.mts "$stage/"
node -e '
  const fs = require("node:fs");
  const file = process.argv[1];
  const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
  const platforms = fs.readdirSync("qr_napi/npm");
  pkg.files = pkg.files.filter((f) => !f.endsWith(".node"));
  pkg.optionalDependencies = Object.fromEntries(platforms.map((p) => [`${pkg.name}-${p}`, pkg.version]));
  fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + "\n");
' "$stage/package.json"
(cd "$stage" && npm pack --silent --pack-destination "$OLDPWD/dist" >/dev/null)
for dir in qr_napi/npm/*/; do
  platform=$(basename "$dir")
  cp -r "$dir" "target/npm/qr-napi-$platform"
  # The files its package.json lists: the .node, or the WASI module and its loaders.
  for f in $(node -p 'require(process.argv[1]).files.join(" ")' "$PWD/$dir/package.json"); do
    cp "qr_napi/$f" "target/npm/qr-napi-$platform/"
  done
  (cd "target/npm/qr-napi-$platform" && npm pack --silent --pack-destination "$OLDPWD/dist" >/dev/null)
done

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
