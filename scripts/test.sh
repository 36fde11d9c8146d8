#!/usr/bin/env bash
# Runs every test: installs what is missing, builds, then the C/C++ suite
# (ctest), the Python suite and the CLI suite (pytest), the Go suite
# (go vet + go test -race) and smoke runs of the demo and the benchmark.
# Each suite starts and stops its own throwaway valkey-server.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${ECHOMQ_BUILD_DIR:-$root/build}
export PATH="$PATH:/usr/local/go/bin"

step() { printf '\n==> %s\n' "$*"; }

step "dependencies"
bash scripts/setup-deps.sh

step "build ($build)"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DECHOMQ_BUILD_TESTS=ON \
  -DECHOMQ_BUILD_CLI=ON -DECHOMQ_BUILD_EXAMPLES=ON -DECHOMQ_BUILD_BENCH=ON >/dev/null
cmake --build "$build" -j2
rm -rf "$build/prefix"
cmake --install "$build" --prefix "$build/prefix" >/dev/null

step "C and C++ tests (ctest)"
ctest --test-dir "$build" --output-on-failure

step "Python package (pip install .)"
python3 -m pip install -q --disable-pip-version-check --no-build-isolation "$root"

step "Python and CLI tests (pytest)"
ECHOMQ_CLI="$build/cli/echomq" python3 -m pytest -q tests/python tests/cli

step "Go tests (go vet, go test -race)"
(
  cd bindings/go
  export CGO_ENABLED=1
  export PKG_CONFIG_PATH="$build/prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  export LD_LIBRARY_PATH="$build/prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  go vet ./...
  go test -race -count=1 ./...
  cd ../../examples/go
  go vet ./...
  cd ../../bench/workers/go
  go vet ./...
)

step "demo and benchmark smoke runs"
BUILD_DIR="$build" DEMO_SVG="$build/echomq-demo.svg" bash scripts/demo.sh
"$build/bench/echomq_bench" --quick --check
ECHOMQ_BUILD_DIR="$build" bash bench/workers/run.sh 2000 1

echo
echo "all test suites passed"
