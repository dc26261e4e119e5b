#!/usr/bin/env bash
# qr_server: generations inline on the async workers (default) against
# tokio's blocking pool (--blocking), under wrk at 100 connections, rounds
# interleaved so both see the same noise. Prints req/s and server CPU per
# request (user + system time of the process over the run).
# Usage: bench/qr-server-modes.sh [rounds] [seconds]   (after `make build`)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
SECONDS_PER_RUN=${2:-10}
BIN=${QR_SERVER_BIN:-target/release/qr_server}
TEXT='https%3A%2F%2Fgithub.com%2Frust-lang%2Frustlings'
TICKS=$(getconf CLK_TCK)

run() { # mode args...
  local mode=$1; shift
  local out pid url before after reqs
  out=$(mktemp)
  "$BIN" --port 0 "$@" >"$out" &
  pid=$!
  until url=$(grep -o 'http://[^ ]*' "$out"); do sleep 0.05; done
  wrk -t1 -c100 -d1s "$url/qrcode?text=$TEXT" >/dev/null # warm-up
  before=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
  reqs=$(wrk -t1 -c100 -d"${SECONDS_PER_RUN}s" "$url/qrcode?text=$TEXT" | awk '/^Requests\/sec/ { print $2 }')
  after=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
  kill "$pid"; wait "$pid" || true
  rm -f "$out"
  awk -v m="$mode" -v r="$reqs" -v t=$((after - before)) -v hz="$TICKS" -v s="$SECONDS_PER_RUN" \
    'BEGIN { printf "%-9s %10.0f req/s %8.1f us CPU/request\n", m, r, t / hz * 1e6 / (r * s) }'
}

for round in $(seq "$ROUNDS"); do
  echo "round $round"
  run inline
  run blocking --blocking
done
