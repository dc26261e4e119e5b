#!/usr/bin/env bash
# The six commands of docs/porting.md, timed, as a team runs them: a copy of
# test/fixtures/team-service in a fresh temporary directory, the toolkit's
# tarballs from dist/ (make package) copied beside it as a registry would
# serve them, the team's port (test/fixtures/team-port.rs) in place of the
# generated one. Prints each step's seconds; the benchmark's report is left
# in DIR/orders-service/rust/csv-to-json/bench-out. BENCH_ARGS adds options
# to the last step (e.g. --quick); OUT=DIR keeps the profile's prediction and
# the benchmark's report there.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/porting-XXXXXX")
mkdir "$dir/registry"
cp "$repo"/dist/{tier-adapters,tier-bench,create-rust-ladder}-[0-9]*.tgz "$dir/registry/"
cp -r "$repo/test/fixtures/team-service" "$dir/orders-service"
# Nothing of this repository on PATH but the node executable's directory.
export PATH=$(dirname "$(command -v node)"):$(tr ':' '\n' <<<"$PATH" | grep -v "^$repo" | paste -sd:)
cd "$dir/orders-service"
npm install --prefer-offline --no-audit --no-fund >/dev/null 2>&1

step() {
  local start=$SECONDS
  "$@" >"$dir/step.log" 2>&1 || { cat "$dir/step.log" >&2; echo "porting-timings: failed: $*" >&2; exit 1; }
  printf 'porting-timings: %4d s  %s\n' $((SECONDS - start)) "$*"
}
tgz() { ls "$dir"/registry/"$1"-[0-9]*.tgz; }
step npm install --prefer-offline --no-audit --no-fund "$(tgz tier-adapters)"
step npm install --save-dev --prefer-offline --no-audit --no-fund "$(tgz tier-bench)"
step npm exec --yes --package="$(tgz create-rust-ladder)" -- create-rust-ladder csv-to-json --from src/csv-to-json.js#csvToJson --yes
step npm install --prefer-offline --no-audit --no-fund
# Before the port: the prediction NAME:bench shows beside what it measures.
step npm run csv-to-json:profile
# The port, what the team writes: the generated port() replaced by theirs.
node -e '
  const fs = require("fs");
  const [lib, port] = [process.argv[1], fs.readFileSync(process.argv[2], "utf8")];
  const s = fs.readFileSync(lib, "utf8");
  const mark = "/// The port of the JavaScript function.";
  fs.writeFileSync(lib, s.slice(0, s.indexOf(mark)) + port.slice(port.indexOf(mark)) + "\n" + s.slice(s.indexOf("/// The same for raw bytes")));
' rust/csv-to-json/core/src/lib.rs "$repo/test/fixtures/team-port.rs"
cp "$repo/test/fixtures/team-corpus.json" rust/csv-to-json/corpus.json
step npm run csv-to-json:build
step npm run csv-to-json:test
# shellcheck disable=SC2086
step npm run csv-to-json:bench -- ${BENCH_ARGS:-}
echo "porting-timings: report in $dir/orders-service/rust/csv-to-json/bench-out/report.md"
# OUT: where the prediction and the run after it are kept (bench/results/predictions/NAME).
if [[ -n "${OUT:-}" ]]; then
  mkdir -p "$OUT/measured"
  cp rust/csv-to-json/profile-out/{profile.json,report.md} "$OUT/"
  cp rust/csv-to-json/bench-out/{report.md,results.json,ratios-w1.svg} "$OUT/measured/"
fi
