#!/usr/bin/env bash
# The commands of docs/porting.md, timed, as a team runs them: a copy of a
# team's service in a fresh temporary directory, the toolkit's tarballs from
# dist/ (make package) copied beside it as a registry would serve them, the
# team's port in place of the generated one. Prints each step's seconds.
#
# Which service (env; the csv-to-json team service by default):
#   SERVICE  the service's directory        (test/fixtures/team-service)
#   NAME     the ladder's name, kebab-case  (csv-to-json)
#   FROM     FILE#EXPORT, the function      (src/csv-to-json.js#csvToJson)
#   PORT_RS  the port that replaces port()  (test/fixtures/team-port.rs)
#   CORPUS   the ladder's corpus.json       (test/fixtures/team-corpus.json)
# e.g. SERVICE=test/fixtures/words-service NAME=top-words FROM=src/top-words.js#topWords
#      PORT_RS=test/fixtures/words-port.rs CORPUS=test/fixtures/words-corpus.json
# BENCH_ARGS adds options to the benchmark (e.g. --quick). OUT (env, or the
# first argument), when set, receives the profile (OUT/profile.json,
# OUT/report.md) and the benchmark's report (OUT/measured/), as committed
# under bench/results/predictions/NAME/.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
abs() { case $1 in /*) echo "$1" ;; *) echo "$repo/$1" ;; esac; }
service=$(abs "${SERVICE:-test/fixtures/team-service}")
name=${NAME:-csv-to-json}
from=${FROM:-src/csv-to-json.js#csvToJson}
port_rs=$(abs "${PORT_RS:-test/fixtures/team-port.rs}")
corpus=$(abs "${CORPUS:-test/fixtures/team-corpus.json}")
out=${1:-${OUT:-}}
[ -z "$out" ] || out=$(mkdir -p "$out" && cd "$out" && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/porting-XXXXXX")
mkdir "$dir/registry"
cp "$repo"/dist/{tier-adapters,tier-bench,create-rust-ladder}-[0-9]*.tgz "$dir/registry/"
svc="$dir/$(basename "$service")"
cp -r "$service" "$svc"
# Nothing of this repository on PATH but the node executable's directory.
export PATH=$(dirname "$(command -v node)"):$(tr ':' '\n' <<<"$PATH" | grep -v "^$repo" | paste -sd:)
cd "$svc"
npm install --prefer-offline --no-audit --no-fund >/dev/null 2>&1

step() {
  local start=$SECONDS
  "$@" >"$dir/step.log" 2>&1 || { cat "$dir/step.log" >&2; echo "porting-timings: failed: $*" >&2; exit 1; }
  printf 'porting-timings: %4d s  %s\n' $((SECONDS - start)) "$*"
}
tgz() { ls "$dir"/registry/"$1"-[0-9]*.tgz; }
step npm install --prefer-offline --no-audit --no-fund "$(tgz tier-adapters)"
step npm install --save-dev --prefer-offline --no-audit --no-fund "$(tgz tier-bench)"
step npm exec --yes --package="$(tgz create-rust-ladder)" -- create-rust-ladder "$name" --from "$from" --yes
step npm install --prefer-offline --no-audit --no-fund
# The team's inputs first: the profile drives the js server with them.
cp "$corpus" "rust/$name/corpus.json"
# Before the port: what each rung can buy, measured on the JavaScript alone.
step npm run "$name:profile"
# The port, what the team writes: the generated port() replaced by theirs.
node -e '
  const fs = require("fs");
  const [lib, port] = [process.argv[1], fs.readFileSync(process.argv[2], "utf8")];
  const s = fs.readFileSync(lib, "utf8");
  const mark = "/// The port of the JavaScript function.";
  fs.writeFileSync(lib, s.slice(0, s.indexOf(mark)) + port.slice(port.indexOf(mark)) + "\n" + s.slice(s.indexOf("/// The same for raw bytes")));
' "rust/$name/core/src/lib.rs" "$port_rs"
step npm run "$name:build"
step npm run "$name:test"
# shellcheck disable=SC2086
step npm run "$name:bench" -- ${BENCH_ARGS:-}
echo "porting-timings: reports in $svc/rust/$name/profile-out and $svc/rust/$name/bench-out"
if [ -n "$out" ]; then
  mkdir -p "$out/measured"
  cp "rust/$name"/profile-out/{profile.json,report.md} "$out/"
  cp "rust/$name"/bench-out/{report.md,results.json,ratios-w1.svg} "$out/measured/"
  echo "porting-timings: copied to $out"
fi
