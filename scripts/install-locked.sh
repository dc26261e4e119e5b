#!/usr/bin/env bash
# scripts/install-locked.sh CRATE VERSION: `cargo install --locked` of one
# version of a tool, failing loudly rather than resolving anew. When
# scripts/locks/CRATE-VERSION.Cargo.lock exists, that lock is the one used:
# the crate's source (fetched by cargo, checked against the registry's
# checksum) is built with it in place of the lock it ships. That is for a
# tool whose own lock names a version the registry does not serve:
# wasm-bindgen-cli 0.2.130 locks webpki-roots 1.0.11; ours differs from its
# by that one package, at 1.0.10 (`diff` against the crate's Cargo.lock).
set -euo pipefail
cd "$(dirname "$0")/.."
crate=$1 version=$2
lock=$PWD/scripts/locks/$crate-$version.Cargo.lock
if [ ! -f "$lock" ]; then
  exec cargo install --quiet --locked "$crate" --version "$version"
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# A package that depends on exactly that version: cargo metadata downloads
# the crate and says where its source is.
mkdir -p "$scratch/fetch/src"
printf '[package]\nname = "fetch"\nversion = "0.0.0"\nedition = "2021"\n\n[dependencies]\n%s = "=%s"\n' \
  "$crate" "$version" >"$scratch/fetch/Cargo.toml"
: >"$scratch/fetch/src/lib.rs"
manifest=$(cargo metadata --quiet --format-version 1 --manifest-path "$scratch/fetch/Cargo.toml" \
  | node -e "let s='';process.stdin.on('data',(c)=>s+=c).on('end',()=>{const m=JSON.parse(s);const p=m.packages.find((p)=>p.name===process.argv[1]&&p.version===process.argv[2]);if(!p)process.exit(1);console.log(p.manifest_path)})" "$crate" "$version")
cp -r "$(dirname "$manifest")" "$scratch/src"
cp "$lock" "$scratch/src/Cargo.lock"
cargo install --quiet --locked --path "$scratch/src"
