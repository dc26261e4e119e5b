#!/usr/bin/env bash
# Builds every artifact people install into dist/ (after `make build`):
#   qr-toolkit-napi-VERSION.tgz   the addon package (CJS + ESM + types), napi-rs's
#                                 layout: no binary, one optional dependency per platform
#   qr-toolkit-napi-PLATFORM-VERSION.tgz
#                                 the binary for linux-x64-gnu, linux-x64-musl,
#                                 linux-arm64-gnu, linux-arm64-musl, and wasm32-wasi
#                                 (wasm32-wasip1-threads: the fallback anywhere else)
#   qr-toolkit-wasm-VERSION.tgz   the Wasm package: nodejs and web builds behind `exports`
#   tier-adapters-VERSION.tgz, tier-bench-VERSION.tgz, create-rust-ladder-VERSION.tgz
#                                 the toolkit for any service: adapters + HTTP server, the
#                                 benchmark command (with the calibration's prebuilt identity
#                                 ladder, make build-calibration), the initializer (docs/porting.md)
#   qr_server-x86_64-unknown-linux-musl, qr_cli-x86_64-unknown-linux-musl
#                                 static executables: one file to deploy
# Prints each artifact's size.
set -euo pipefail
cd "$(dirname "$0")/.."

MUSL=x86_64-unknown-linux-musl
rm -rf dist
mkdir -p dist

# The addon, released the way napi-rs's own CI does it: one build per target
# into an artifacts directory, `napi artifacts` to put each binary into its
# npm/<platform> package, `napi pre-publish` to version them and list them as
# the main package's optionalDependencies (npm installs the one whose
# os/cpu/libc match). Every Linux target is cross-compiled with zig as the
# linker (napi build -x, cargo-zigbuild; scripts/setup.sh installs both): one
# toolchain for musl and arm64, offline, and the `.2.17` suffix links the glibc
# builds against glibc 2.17's symbols, so they load on any glibc Linux from
# 2012 on, not only on one as new as this machine's.
export PATH="$PATH:$(python3 -c 'import ziglang, os; print(os.path.dirname(ziglang.__file__))')"
artifacts=$PWD/target/napi-artifacts
rm -rf "$artifacts"
mkdir -p "$artifacts"
napi_build() {
  (cd qr_napi && ../node_modules/.bin/napi build --platform --release --output-dir "$artifacts" "$@" -- --locked >/dev/null 2>&1) \
    || { echo "package: napi build $* failed" >&2; exit 1; }
}
for target in x86_64-unknown-linux-gnu.2.17 x86_64-unknown-linux-musl aarch64-unknown-linux-gnu.2.17 aarch64-unknown-linux-musl; do
  napi_build --target "$target" -x
done
# The fallback where no native binary fits: the addon for WASI with threads,
# which napi-rs's loader runs on @napi-rs/wasm-runtime (emnapi).
napi_build --target wasm32-wasip1-threads
# And beside the repository's own loader (qr_napi/index.js), as a plain
# `napi build --target wasm32-wasip1-threads` would leave it: napi-rs's loader
# falls back to it there, and tier auto's test checks that auto refuses it.
cp "$artifacts"/qr-napi.wasm32-wasi*.wasm "$artifacts"/qr-napi.wasi* "$artifacts"/wasi-worker*.mjs qr_napi/

# A copy of the package to release from: pre-publish rewrites package.json files.
stage=target/npm/qr-napi
rm -rf "$stage"
mkdir -p "$stage"
cp -r qr_napi/package.json qr_napi/index.js qr_napi/index.d.ts qr_napi/index.mjs qr_napi/index.d.mts qr_napi/npm "$stage/"
napi() {
  (cd "$stage" && "$OLDPWD/node_modules/.bin/napi" "$@" >"$OLDPWD/target/npm/napi.log" 2>&1) \
    || { cat target/npm/napi.log >&2; echo "package: napi $* failed" >&2; exit 1; }
}
napi artifacts --output-dir "$artifacts" --build-output-dir "$artifacts" --npm-dir npm
# --skip-optional-publish: prepare every package, publish none (npm pack below).
napi pre-publish --npm-dir npm --tag-style npm --skip-optional-publish
# napi artifacts also copies each binary next to the main package (for local
# use); the main package's `files` leaves them out of its tarball.
(cd "$stage" && npm pack --silent --pack-destination "$OLDPWD/dist" >/dev/null)
for dir in "$stage"/npm/*/; do
  (cd "$dir" && npm pack --silent --pack-destination "$OLDPWD/dist" >/dev/null)
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

# The toolkit's own packages, nothing QR in them: the adapters with the HTTP
# layer (tier-adapters), the benchmark as a command (tier-bench) and the
# initializer (create-rust-ladder). No Rust toolchain needed to install or
# run them: tier-bench carries the calibration's identity ladder prebuilt
# (bench/calibration: an addon, a Wasm module, a CLI, a C-ABI library) for
# the platform that built it, and skips its native tiers anywhere else.
for dir in tier-adapters bench scaffold; do
  npm pack --silent --pack-destination dist "./$dir" >/dev/null
done

# Pure Rust down to the syscalls: Rust's self-contained musl target links a
# static executable with no C toolchain beyond the system linker.
cargo build --quiet --locked --release --target "$MUSL" -p qr_server -p qr_cli
for bin in qr_server qr_cli; do
  cp "target/$MUSL/release/$bin" "dist/$bin-$MUSL"
done

# test/artifacts/package.test.js installs dist/ with `npm install --offline`. The WASI
# package's dependencies (@napi-rs/wasm-runtime, @emnapi/*) are ranges, so an
# offline install needs their registry metadata in npm's cache, which
# `npm ci` (lockfile only) never fetches: one online install of that package
# in a scratch directory puts it there, on a fresh machine too (--force: a
# direct install of a wasm32 package is refused on x64 otherwise), at the
# versions package-lock.json holds (scripts/wasi-runtime-pins.js), no
# install script run.
scratch=$(mktemp -d)
echo "{ \"name\": \"cache-wasi-deps\", \"private\": true, \"overrides\": $(node scripts/wasi-runtime-pins.js) }" \
  > "$scratch/package.json"
(cd "$scratch" && npm install --silent --force --ignore-scripts --no-audit --no-fund --cpu=wasm32 \
  "$OLDPWD"/dist/qr-toolkit-napi-wasm32-wasi-*.tgz >/dev/null)
rm -rf "$scratch"

for f in dist/*; do
  printf 'package: %-45s %9d bytes\n' "$f" "$(stat -c %s "$f")"
done
