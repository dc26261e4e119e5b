# The two entry points are `make bench` and `make test`; both install what
# they need (scripts/setup.sh) and build everything first.
SHELL := /bin/bash
CARGO ?= cargo

# Every recipe runs on the Node line .nvmrc pins (scripts/setup.sh installs it
# into target/node), whatever node the machine has; the other supported lines
# (scripts/node-versions) run the contract and package suites, the oldest
# the resilience suites' quick set too (test-node-lines).
NODE_VERSION := $(shell cat .nvmrc)
OTHER_NODE_VERSIONS := $(filter-out $(NODE_VERSION),$(shell awk '!/^\#/ && NF { print $$1 }' scripts/node-versions))
OLDEST_NODE_VERSION := $(firstword $(shell awk '!/^\#/ && NF { print $$1 }' scripts/node-versions | sort -V))
export PATH := $(CURDIR)/target/node/$(NODE_VERSION)/bin:$(PATH)

.PHONY: setup setup-bench build build-bench build-artifacts build-rust build-napi build-wasm build-calibration build-testing package image bench bench-full bench-core soak serve deploy test test-lane-lint test-lane-package test-rust test-node test-node-contract test-node-packages test-node-team test-node-profile test-node-timed test-node-lines test-lines-contract test-lines-packages test-lines-resilience test-runtimes fuzz lint clean

# `make test` sets ALREADY_BUILT=1 for the stages it runs after its own
# build and setup: they skip running them again (two setups at once would race).
SETUP := $(if $(ALREADY_BUILT),,setup)
SETUP_BENCH := $(if $(ALREADY_BUILT),,setup-bench)
BUILD := $(if $(ALREADY_BUILT),,build)

setup:
	scripts/setup.sh

# Only what building and benchmarking need: `make bench` on a fresh machine
# installs no test-only tool.
setup-bench:
	scripts/setup.sh bench

build: setup build-artifacts

build-bench: setup-bench build-artifacts

build-artifacts: build-rust build-napi build-wasm build-calibration

# Each binary on its own, as `cargo install --path` builds it (a workspace-wide
# build unifies its dependencies' features with the addon's, and the install
# would build it again), and qr_ffi's C-ABI library (tier ffi).
build-rust:
	$(CARGO) build --release --locked -p qr_cli
	$(CARGO) build --release --locked -p qr_server
	$(CARGO) build --release --locked -p qr_ffi --lib

# qr_wasm's wasm-pack packages (tier wasm, the browser's) and qr_wasm_raw's module (tier wasm-raw), through wasm-opt.
build-wasm:
	scripts/build-wasm.sh

# @napi-rs/cli builds qr_napi and writes its index.js / index.d.ts loader.
build-napi:
	npm run build -w qr_napi

# The identity ladder tier-bench's calibration measures each tier's boundary
# with (bench/lib/calibrate.js): create-rust-ladder's template rendered into
# bench/calibration/ladder and built by its own build.js, into target/ after
# the workspace's crates so that it reuses their dependencies; shipped prebuilt.
build-calibration:
	node bench/calibration/build.js

# Test-only variants (cargo feature `testing`) in target/testing: never shipped.
build-testing:
	scripts/build-testing.sh

## Every installable artifact in dist/: the addon and Wasm npm tarballs, the toolkit's
## packages (tier-adapters, tier-bench, create-rust-ladder), static musl qr_server and qr_cli.
package: $(BUILD)
	scripts/package.sh

## The OCI image of the static qr_server (deploy/image), with podman: localhost/qr-server:VERSION.
image: setup
	scripts/image.sh

## Build everything, then start a tier (TIER=cli-pool by default) on port 42069.
serve: build
	node node-server/server.js --tier $(or $(TIER),cli-pool)

## Build everything, then run deploy/: nginx on :8080 -> two qr_server + node-server.
deploy: build
	node deploy/start.js

## Build what the benchmark runs, then benchmark every tier at one worker in
## interleaved rounds until each ratio is known to ±5% (CPU) and ±10% (req/s),
## about 15 minutes (report in bench/out). BENCH_ARGS adds options (bench/run.js --help).
bench: build-bench
	node bench/run.js $(BENCH_ARGS)

## The long run: the default rounds, then two workers, the cost curves, fixed
## rates and the other Node lines (report in bench/out/full), then the core.
bench-full: build
	node bench/run.js --full --out bench/out/full $(BENCH_ARGS)
	$(MAKE) bench-core

## The core alone: cargo's stage table and length curve, instructions per
## stage (valgrind), then the same sets through the addon and both Wasm builds.
bench-core:
	$(CARGO) bench -p qr_lib --bench core
	$(CARGO) bench -p qr_lib --bench instructions
	node bench/core-curve.js

## Build everything, then soak cli-pool, wasm-raw and napi-async for 10 minutes each.
soak: build-bench
	node bench/soak.js --duration 10m $(BENCH_ARGS)

## Build everything and run every test. After the build, two lanes at once,
## each in order, whose suites check answers and time nothing:
##   - build-testing, lint, the Rust tests, every tier's contract on the
##     pinned Node, the fuzzers, every tier's contract on the other Node
##     lines;
##   - the packages, the installed packages, the image and its manifests on
##     the pinned Node, the installed packages on the other lines, the
##     toolkit in a team's own service, every tier's contract on Bun and
##     Deno, a profile of a team's service.
## Cargo locks each output directory, not target/, so the lanes do not wait
## on each other, and each one's single-threaded stretches (LTO links,
## libFuzzer's one process, one Node test at a time) leave a core to the
## other. Then, one at a time and alone on the machine, the suites that hold
## latencies, memory and rates to bounds.
test: build
	$(MAKE) --no-print-directory -j2 test-lane-lint test-lane-package
	$(MAKE) --no-print-directory test-node-timed test-lines-resilience

# A lane's stages one after another, outside make's jobserver: cargo runs its
# own jobs, as it does alone (two lanes of two on two cores).
LANE := MAKEFLAGS= $(MAKE) --no-print-directory ALREADY_BUILT=1

test-lane-lint:
	$(LANE) build-testing
	$(LANE) lint
	$(LANE) test-rust
	$(LANE) test-node-contract
	$(LANE) fuzz
	$(LANE) test-lines-contract

test-lane-package:
	$(LANE) package
	$(LANE) test-node-packages
	$(LANE) test-lines-packages
	$(LANE) test-node-team
	$(LANE) test-runtimes
	$(LANE) test-node-profile

## Fuzz each target (fuzz/fuzz_targets) for FUZZ_SECONDS: a short run in
## `make test`, longer ones by hand (make fuzz FUZZ_SECONDS=1800). Each run
## starts from the target's regressions (fuzz/regressions/TARGET: inputs
## that once failed), so those are replayed every time. The RPC
## frame decoder must also reach FUZZ_MIN_RPC_RUNS inputs (a floor: a slow
## target would otherwise pass having tried little).
FUZZ_SECONDS ?= 20
FUZZ_MIN_RPC_RUNS ?= 100000
FUZZ_TARGETS := core query frames rpc_frames
fuzz: $(SETUP)
	cd fuzz && for target in $(FUZZ_TARGETS); do \
	  mkdir -p corpus/$$target; seeds=; [ ! -d regressions/$$target ] || seeds=regressions/$$target; \
	  cargo fuzz run -O $$target corpus/$$target $$seeds -- -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 2>&1 | tee target/fuzz-$$target.log; \
	  [ $${PIPESTATUS[0]} -eq 0 ] || exit 1; \
	done
	@runs=$$(sed -n 's/^stat::number_of_executed_units: //p' fuzz/target/fuzz-rpc_frames.log); \
	  echo "fuzz: rpc_frames ran $$runs inputs"; \
	  [ "$${runs:-0}" -ge $(FUZZ_MIN_RPC_RUNS) ] || { echo "fuzz: rpc_frames ran fewer than $(FUZZ_MIN_RPC_RUNS) inputs" >&2; exit 1; }

## The JavaScript: Biome formats and lints every hand-written file (biome.json
## says which are not: generated or data), with no warning let through; tsc
## checks the published packages' JS against their JSDoc types. The 120-column
## bound on comments and strings, which no formatter moves, is
## test/tooling/js-style.test.js.
lint: $(SETUP_BENCH)
	node_modules/.bin/biome ci --error-on-warnings .
	node_modules/.bin/tsc -p tier-adapters
	node_modules/.bin/tsc -p scaffold
	node_modules/.bin/tsc -p bench
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
# Both Wasm crates and the core for Wasm with SIMD128, as shipped: linted so they keep compiling.
	$(CARGO) clippy -p qr_wasm -p qr_wasm_raw --target wasm32-unknown-unknown -- -D warnings
# create-rust-ladder's template where it sits: a workspace for the placeholder `ladder-example`,
# whose binding files the QR ladder's crates compile too.
	$(CARGO) fmt --manifest-path scaffold/template/ladder/Cargo.toml --all --check
	$(CARGO) clippy --locked --manifest-path scaffold/template/ladder/Cargo.toml --target-dir target --workspace --all-targets -- -D warnings
# The calibration's identity ladder (make build-calibration renders it): its port and what the template makes of it.
	rustfmt --check --edition 2021 bench/calibration/port.rs bench/calibration/rpc.rs
	clippy-driver --edition 2021 -D warnings -o target/identity_rpc-lint bench/calibration/rpc.rs
	$(CARGO) fmt --manifest-path bench/calibration/ladder/Cargo.toml --all --check
	$(CARGO) clippy --manifest-path bench/calibration/ladder/Cargo.toml --target-dir target --workspace --all-targets -- -D warnings

test-rust:
	$(CARGO) test --locked --workspace
	$(CARGO) test --locked --manifest-path scaffold/template/ladder/Cargo.toml --target-dir target \
	  -p ladder_example_core -p ladder_example_cli -p ladder_example_ffi

## Every Node suite on the pinned line, one file at a time (what `make test`
## runs in its lanes and then alone, in one go).
test-node:
	npm test

# The pinned line's suites, split for `make test` as above.
CONTRACT_SUITES := $(wildcard test/contract/*.test.js)
PACKAGE_SUITES := test/artifacts/package.test.js test/artifacts/toolkit-packages.test.js \
  test/artifacts/image.test.js test/artifacts/kubernetes.test.js
TEAM_SUITES := test/tooling/team.test.js
PROFILE_SUITES := test/tooling/profile.test.js
TIMED_SUITES := $(filter-out $(CONTRACT_SUITES) $(PACKAGE_SUITES) $(TEAM_SUITES) $(PROFILE_SUITES),$(wildcard test/*/*.test.js)) \
  $(wildcard tier-adapters/test/*.test.js)
NODE_TEST := node --test --test-concurrency=1
test-node-contract:
	$(NODE_TEST) $(CONTRACT_SUITES)
test-node-packages:
	$(NODE_TEST) $(PACKAGE_SUITES)
test-node-team:
	$(NODE_TEST) $(TEAM_SUITES)
test-node-profile:
	$(NODE_TEST) $(PROFILE_SUITES)
test-node-timed:
	$(NODE_TEST) $(TIMED_SUITES)

# On each other supported line: every tier's contract and the installed
# packages. On the oldest, also the quick set (ADVERSARIAL_QUICK) of the
# resilience suites: the attacks, the drain on SIGTERM and the panics. They
# exercise Node's own HTTP parser and timers, which behaved apart on the
# oldest line (Node 22's read-ahead growth, test/resilience/adversarial.test.js);
# on every line they would add some four minutes each to CI.
on-line = PATH="$(CURDIR)/target/node/$(1)/bin:$$PATH" ADVERSARIAL_QUICK=1 $(NODE_TEST) $(2)
test-node-lines: test-lines-contract test-lines-packages test-lines-resilience
test-lines-contract:
	$(foreach version,$(OTHER_NODE_VERSIONS),$(call on-line,$(version),test/contract/contract.test.js) &&) true
test-lines-packages:
	$(foreach version,$(OTHER_NODE_VERSIONS),$(call on-line,$(version),test/artifacts/package.test.js \
	  test/artifacts/toolkit-packages.test.js) &&) true
test-lines-resilience:
	$(call on-line,$(OLDEST_NODE_VERSION),test/resilience/adversarial.test.js test/resilience/shutdown.test.js \
	  test/resilience/faults.test.js)

# node-server on Bun and Deno (scripts/runtime-versions): every tier's contract
# where the runtime serves it; test/helpers/runtimes.js lists the others and why.
RUNTIMES := $(shell awk '!/^\#/ && NF { print $$1 }' scripts/runtime-versions)
test-runtimes:
	@for runtime in $(RUNTIMES); do \
	  echo "test-runtimes: $$runtime"; \
	  QR_TEST_RUNTIME=$$runtime node --test --test-concurrency=1 test/contract/contract.test.js || exit 1; \
	done

clean:
	$(CARGO) clean
	rm -rf node_modules node-server/node_modules bench/out dist bench/calibration/ladder
