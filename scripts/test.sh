#!/usr/bin/env bash
# Runs every test: installs what is missing, builds, then the C/C++ suite
# (ctest), the Python suite and the CLI suite (pytest), the dashboard suite
# (pytest, headless Chromium), the Go suite
# (go vet + go test -race), every README code block (tests/docs), two seeded chaos runs (tests/chaos),
# the packaging tests (pytest: the wheel, the Go
# module as an outside user gets it), smoke runs of the demo and the
# benchmarks (the peer benchmarks install their peers themselves), the C/C++ suite again under ASan+UBSan and under TSan
# (build/asan, build/tsan), and a bounded libFuzzer run over input
# validation (build/fuzz, ECHOMQ_FUZZ_SECONDS, default 60).
# Each suite starts and stops its own throwaway valkey-server. The C/C++
# suite runs again against redis-server 7.0, with a Python subset and the
# engine drain.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${ECHOMQ_BUILD_DIR:-$root/build}
export PATH="$PATH:/usr/local/go/bin"

# Each step says when it starts (seconds since the run began), so a slow
# step shows in the log.
step() { printf '\n==> %s (at %d s)\n' "$*" "$SECONDS"; }

step "dependencies"
bash scripts/setup-deps.sh

step "build ($build)"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DECHOMQ_BUILD_TESTS=ON \
  -DECHOMQ_BUILD_CLI=ON -DECHOMQ_BUILD_EXAMPLES=ON -DECHOMQ_BUILD_BENCH=ON >/dev/null
cmake --build "$build" -j2
rm -rf "$build/prefix"
cmake --install "$build" --prefix "$build/prefix" >/dev/null

# Every ctest pass runs two tests at a time: each test uses queues of its
# own and servers on free ports, and most of the suite waits on the server.
step "C and C++ tests (ctest)"
ctest --test-dir "$build" --output-on-failure -j2

# The same build against Redis 7.0 (Debian's redis-server): every fixture,
# private server and cluster node the tests start honours $VALKEY_SERVER.
# Tests that need a command Redis 7.0 lacks assert what the library does
# there (docs/operations.md, "Supported servers"); none is skipped.
step "C and C++ tests against Redis 7.0 (ctest, VALKEY_SERVER=redis-server)"
VALKEY_SERVER=redis-server ctest --test-dir "$build" --output-on-failure -j2

step "Python package (sdist and wheel: python -m build; install the wheel)"
# The wheel is built from the sdist, so a file missing from the sdist fails here.
rm -rf "$build/dist"
CMAKE_BUILD_PARALLEL_LEVEL=2 python3 -m build --no-isolation --outdir "$build/dist" "$root" \
  >"$build/python-build.log" 2>&1 || { tail -n 60 "$build/python-build.log"; exit 1; }
python3 -m pip install -q --disable-pip-version-check --force-reinstall --no-deps "$build/dist"/echomq-*.whl

step "Python and CLI tests (pytest)"
ECHOMQ_CLI="$build/cli/echomq" python3 -m pytest -q tests/python tests/cli

step "dashboard tests (pytest: HTTP API, and headless Chromium via selenium)"
# Headless, no stdin: runs the same in CI. The screenshot of the queue page
# is left in the build tree for people to look at.
CI=true ECHOMQ_CLI="$build/cli/echomq" ECHOMQ_DASHBOARD_SHOT="$build/dashboard.png" \
  python3 -m pytest -q tests/dashboard </dev/null

# A representative Python subset against Redis 7.0 (about 20 s): the client
# calls, the errors, blocking claims, the worker engine, and the two that
# differ by server (durability waits, doctor). The rest drives the same C
# core, which the ctest pass above covers on Redis.
step "Python subset against Redis 7.0 (pytest, VALKEY_SERVER=redis-server)"
VALKEY_SERVER=redis-server ECHOMQ_CLI="$build/cli/echomq" python3 -m pytest -q \
  tests/python/test_basics.py tests/python/test_errors.py tests/python/test_blocking.py \
  tests/python/test_worker_engine.py tests/python/test_durability.py tests/python/test_doctor.py

step "Go tests (go vet, go test -race; the core and bindings/go/otel)"
(
  cd bindings/go
  export CGO_ENABLED=1
  # Static libechomq by default (echomq-static.pc): no LD_LIBRARY_PATH needed.
  export PKG_CONFIG_PATH="$build/prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  # Go's build cache does not notice a changed C library (`go help cache`):
  # a stamp of the installed header and archive in the cgo flags rebuilds the
  # cgo packages, and relinks, whenever libechomq changes.
  stamp=$(cat "$build"/prefix/include/echomq/*.h "$build/prefix/lib/libechomq.a" | sha256sum | cut -c1-16)
  export CGO_CPPFLAGS="${CGO_CPPFLAGS:+$CGO_CPPFLAGS }-DECHOMQ_LIB_STAMP=$stamp"
  go vet ./...
  go test -race -count=1 ./...
  # The OpenTelemetry module (its own go.mod over the core: one trace through
  # a worker, read from the SDK's in-memory exporter).
  cd otel
  go vet ./...
  go test -race -count=1 ./...
  cd ../../../examples/go
  go vet ./...
  cd ../web/go
  go vet ./...
  cd ../../../bench/workers/go
  go vet ./...
  cd ../../peers/go
  go vet ./...
)

# The example web services (examples/web): each started on a free loopback
# port, asked over HTTP (about 25 s; after the Go tests, whose cache it reuses).
step "example web services (tests/examples: Starlette and net/http)"
ECHOMQ_PREFIX="$build/prefix" python3 -m pytest -q tests/examples

# Every code block of the READMEs, run against a real server or compiled
# (tests/docs/README.md); after the Go tests, whose -race cache it reuses.
step "README code blocks (tests/docs: about 25 s)"
(
  stamp=$(cat "$build"/prefix/include/echomq/*.h "$build/prefix/lib/libechomq.a" | sha256sum | cut -c1-16)
  ECHOMQ_BUILD_DIR="$build" CGO_CPPFLAGS="${CGO_CPPFLAGS:+$CGO_CPPFLAGS }-DECHOMQ_LIB_STAMP=$stamp" \
    python3 -m pytest -q tests/docs
)

# Two fixed seeds of the randomized fault checker (tests/chaos/README.md):
# a live workload in C, Python and Go against a primary, a replica and a
# Sentinel while a nemesis injects faults; the checker reads the history.
# A failing seed prints the one command that runs it again. Then the
# checker's self-test plants one violation per rule in copies of the first
# run's history and expects each reported (no server, about 20 s).
step "chaos runs (tests/chaos: two fixed seeds and the checker's self-test, about 2.5-3 minutes)"
for seed_fsync in "1 always" "2 everysec"; do
  set -- $seed_fsync
  rm -rf "$build/chaos/run-$1"
  ECHOMQ_BUILD_DIR="$build" python3 tests/chaos/chaos.py run --seed "$1" --duration 30 --fsync "$2" \
    --out "$build/chaos/run-$1"
done
python3 tests/chaos/selftest.py "$build/chaos/run-1"

step "packaging tests (wheel in a fresh venv, Go module through a file GOPROXY)"
ECHOMQ_DIST_DIR="$build/dist" ECHOMQ_PREFIX="$build/prefix" python3 -m pytest -q tests/packaging

step "demo and benchmark smoke runs"
BUILD_DIR="$build" DEMO_SVG="$build/echomq-demo.svg" bash scripts/demo.sh
"$build/bench/echomq_bench" --quick --check
"$build/bench/echomq_bench_tls" --quick
ECHOMQ_BUILD_DIR="$build" bash bench/workers/run.sh 2000 1
# The engine drain of the Python, Go and C workers against Redis 7.0.
VALKEY_SERVER=redis-server ECHOMQ_BUILD_DIR="$build" bash bench/workers/run.sh 2000 1

step "peer benchmark smoke runs (bench/peers: rq, arq, Celery from PyPI; asynq from the Go proxy)"
# Small sizes, correctness only (every phase must see all its jobs run).
ECHOMQ_BUILD_DIR="$build" bash bench/peers/python/run.sh --smoke
ECHOMQ_BUILD_DIR="$build" bash bench/peers/go/run.sh -smoke
(  # bench/compare's workload (e), EchoMQ's side (the Node peers are not in CI)
  e_dir=$(mktemp -d)
  trap 'bash tests/valkey-server.sh stop "$e_dir/valkey" >/dev/null 2>&1 || true' EXIT
  e_url=$(bash tests/valkey-server.sh start "$e_dir/valkey")
  "$build/bench/echomq_bench" compare --url "$e_url" --phase e --backlog 300 --warmup 0.3 --window 1 \
    --max-wait 5 >/dev/null
)

# The sanitizer trees build the library and the C/C++ tests only, unoptimised
# (Debug compiles several times faster; the tests wait on the server anyway).
sanitized() {
  local dir=$1
  shift
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DECHOMQ_BUILD_TESTS=ON -DECHOMQ_BUILD_CLI=OFF \
    -DECHOMQ_BUILD_EXAMPLES=OFF -DECHOMQ_BUILD_BENCH=OFF "$@" >/dev/null
  cmake --build "$dir" -j2
}

# One test asserts throughput (fast lanes served 4x more than a rate-limited
# one within 3 s of claims); an unoptimised sanitizer build cannot claim that
# fast, so it runs in the plain suite above only.
san_skip='served at that rate while 20 lanes run at full speed'

step "C and C++ tests under ASan + UBSan ($build/asan)"
sanitized "$build/asan" -DECHOMQ_SANITIZE=ON
ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir "$build/asan" --output-on-failure -j2 -E "$san_skip"

step "C and C++ tests under TSan ($build/tsan)"
sanitized "$build/tsan" -DECHOMQ_SANITIZE_THREAD=ON
TSAN_OPTIONS=halt_on_error=1 ctest --test-dir "$build/tsan" --output-on-failure -j2 -E "$san_skip"

step "fuzzing names, URLs and arguments for ${ECHOMQ_FUZZ_SECONDS:-60} s ($build/fuzz)"
CC=clang CXX=clang++ cmake -S . -B "$build/fuzz" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DECHOMQ_BUILD_FUZZ=ON -DECHOMQ_BUILD_TESTS=OFF -DECHOMQ_BUILD_CLI=OFF \
  -DECHOMQ_BUILD_EXAMPLES=OFF -DECHOMQ_BUILD_BENCH=OFF >/dev/null
cmake --build "$build/fuzz" -j2 --target echomq_fuzz_validate
bash tests/fuzz/run.sh "$build/fuzz/tests/fuzz/echomq_fuzz_validate" "${ECHOMQ_FUZZ_SECONDS:-60}"

echo
echo "all test suites passed in $SECONDS s"
