#!/usr/bin/env bash
# EchoMQ side by side with BullMQ and groupmq, on one throwaway valkey-server
# in one run. Not part of the test suite or CI.
#
#   bench/compare/run.sh            (needs a built tree: BUILD_DIR, default ./build)
#   JOBS=5000 PASSES=1 bench/compare/run.sh  (a smaller, single pass)
#
# Installs the peers from npm into bench/compare/node_modules (ignored by git;
# no lockfile is written), starts valkey-server with tests/valkey-server.sh,
# runs the same two workloads through each library (PASSES times, default 3,
# the libraries taking turns), prints the table of medians, writes
# the combined JSON to $BUILD_DIR/bench/compare.json, and always stops the server.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD_DIR:-build}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
bench="$build/bench/echomq_bench"
jobs=${JOBS:-50000}
passes=${PASSES:-3}
out=${COMPARE_JSON:-$build/bench/compare.json}

[ -x "$bench" ] || { echo "run.sh: $bench not found; build first (cmake --build build)" >&2; exit 1; }
command -v node >/dev/null || { echo "run.sh: node (20+) is required" >&2; exit 1; }

echo "installing the peers from npm into $here/node_modules ..."
(cd "$here" && npm install --no-package-lock --no-audit --no-fund --loglevel=error >/dev/null)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/echomq-compare.XXXXXX")
cleanup() { "$root/tests/valkey-server.sh" stop "$tmp/valkey" >/dev/null 2>&1 || true; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
url=$("$root/tests/valkey-server.sh" start "$tmp/valkey")
echo "valkey-server at $url; workload (a) with $jobs jobs"

files=()
run() {  # run NAME PASS COMMAND...: one library's JSON line into $tmp/NAME.PASS.json
  local name=$1 pass=$2
  shift 2
  echo "  pass $pass: $name ..."
  "$@" --url "$url" --jobs "$jobs" --prefix "cmp-$name-$pass" >"$tmp/$name.$pass.json"
  files+=("$tmp/$name.$pass.json")
}
for pass in $(seq 1 "$passes"); do
  run echomq "$pass" "$bench" compare
  run bullmq "$pass" node "$here/bullmq.mjs"
  run groupmq "$pass" node "$here/groupmq.mjs"
done

mkdir -p "$(dirname "$out")"
node "$here/summary.mjs" "${files[@]}" --json "$out"
echo
echo "combined JSON: $out"
