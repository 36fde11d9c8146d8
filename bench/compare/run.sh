#!/usr/bin/env bash
# EchoMQ side by side with BullMQ and groupmq, on one throwaway valkey-server
# in one run. Not part of the test suite or CI.
#
#   bench/compare/run.sh            (needs a built tree: BUILD_DIR, default ./build)
#   JOBS=5000 PASSES=1 bench/compare/run.sh  (a smaller, single pass)
#
# Installs the peers from npm into bench/compare/node_modules (ignored by git;
# no lockfile is written), starts valkey-server with tests/valkey-server.sh,
# runs the same workloads through each library (PASSES times, default 3, the
# libraries taking turns): (a) enqueue + drain at 1 and 8 workers with the
# server's CPU and command counts per job read around it, (b) the skewed
# load at 1 and 8 workers, (d) a deep drain by 8 workers with 16 jobs in
# flight each (the peers' concurrency, the engine's slots per thread),
# (first pass) (e) sustained overload (EchoMQ also with a fixed prefetch),
# and (first pass) memory per pending job at 20 and
# 100-byte payloads; prints the tables of medians with ratios, writes the
# combined JSON to $BUILD_DIR/bench/compare.json, and always stops the server.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD_DIR:-build}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
bench="$build/bench/echomq_bench"
jobs=${JOBS:-50000}
passes=${PASSES:-3}
mem_jobs=${MEM_JOBS:-100000}
out=${COMPARE_JSON:-$build/bench/compare.json}
# Options of workload (e), e.g. E_ARGS="--window 5 --max-wait 10".
E_ARGS=${E_ARGS:-}

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

# Each library runs its phases in turn; the server's figures are read
# around each: CPU and command counts around (a), memory around (mem).
files=()
srv() { node "$here/server.mjs" "$@"; }
phase() {  # phase NAME PASS PHASE [ARGS...]: one library's JSON line for one phase
  local name=$1 pass=$2 ph=$3
  shift 3
  local cmd=()
  case "$name" in
    echomq) cmd=("$bench" compare) ;;
    *) cmd=(node "$here/$name.mjs") ;;
  esac
  "${cmd[@]}" --url "$url" --jobs "$jobs" --prefix "cmp-$name-$pass" --phase "$ph" "$@"
}
for pass in $(seq 1 "$passes"); do
  for name in echomq bullmq groupmq; do
    echo "  pass $pass: $name ..."
    f="$tmp/$name.$pass"
    srv "$url" snap >"$f.pre"
    phase "$name" "$pass" a >"$f.a.json"
    srv "$url" snap >"$f.post"
    srv delta "$f.pre" "$f.post" "$((jobs * 2))" >"$f.server.json"  # 2 drains: 1 and 8 workers
    phase "$name" "$pass" b >"$f.b.json"
    phase "$name" "$pass" d >"$f.d.json"
    if [ "$pass" = 1 ]; then
      phase "$name" "$pass" e $E_ARGS >"$f.e.json"
      if [ "$name" = echomq ]; then
        phase "$name" "$pass" e --target-wait 0 $E_ARGS >"$f.efixed.json"
      fi
      for payload in 20 100; do
        srv "$url" flush
        srv "$url" snap >"$f.mpre"
        phase "$name" "$pass" mem --mem-jobs "$mem_jobs" --payload "$payload" >/dev/null
        srv "$url" snap >"$f.mpost"
        srv delta "$f.mpre" "$f.mpost" "$mem_jobs" >"$f.mem$payload.json"
        srv "$url" flush
      done
    fi
    files+=("$name:$pass:$f")
  done
done

mkdir -p "$(dirname "$out")"
node "$here/summary.mjs" "${files[@]}" --json "$out"
echo
echo "combined JSON: $out"
