#!/usr/bin/env bash
# Installs Bun and Deno, pinned in scripts/runtime-versions, as
# scripts/setup.sh installs the Node lines: the npm registry's package, its
# integrity checked, the one binary unpacked into target/RUNTIME/VERSION/bin.
# Nothing outside the build tree changes; safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '\033[1msetup:\033[0m %s\n' "$*"; }

[ "$(uname -m)" = x86_64 ] || { echo "setup: the pinned runtimes are for x86-64 Linux (scripts/runtime-versions)" >&2; exit 1; }
while read -r runtime package version member integrity; do
  case "$runtime" in ''|'#'*) continue ;; esac
  dir="target/$runtime/$version/bin"
  [ -x "$dir/$runtime" ] && continue
  log "$runtime $version (npm $package@$version) into $dir"
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "$package@$version" >/dev/null)
  actual="sha512-$(openssl dgst -sha512 -binary "$tmp"/*.tgz | base64 -w0)"
  [ "$actual" = "$integrity" ] || { echo "setup: $package@$version has integrity $actual, scripts/runtime-versions pins $integrity" >&2; exit 1; }
  mkdir -p "$dir"
  tar -xzf "$tmp"/*.tgz -C "$tmp" "$member"
  install -m 755 "$tmp/$member" "$dir/$runtime"
  rm -rf "$tmp"
done <scripts/runtime-versions
