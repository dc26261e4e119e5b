#!/usr/bin/env bash
# `make image`: the OCI image of the static qr_server (deploy/image/Containerfile),
# tagged localhost/qr-server:VERSION, built by podman (buildah inside).
# Prints the image's name and size.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v podman >/dev/null 2>&1 || { echo "image: podman is required (apt-get install podman)" >&2; exit 1; }
# podman 4's defaults need systemd as init; deploy/image/containers.conf does not.
export CONTAINERS_CONF=${CONTAINERS_CONF:-$PWD/deploy/image/containers.conf}

MUSL=x86_64-unknown-linux-musl
VERSION=$(cargo pkgid -p qr_server | sed 's/.*[#@]//')
IMAGE=localhost/qr-server:$VERSION

cargo build --quiet --locked --release --target "$MUSL" -p qr_server
context=target/image
rm -rf "$context"
mkdir -p "$context"
cp deploy/image/Containerfile "$context/"
cp "target/$MUSL/release/qr_server" "$context/"
# --format docker: the OCI format has no HEALTHCHECK.
podman build --quiet --format docker --build-arg "VERSION=$VERSION" -t "$IMAGE" "$context" >/dev/null
printf 'image: %s %d bytes\n' "$IMAGE" "$(podman image inspect --format '{{.Size}}' "$IMAGE")"
