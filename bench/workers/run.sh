#!/usr/bin/env bash
# Python and Go workers with a no-op handler against the C worker engine
# (issue 9 item 5): each drains N jobs (100 lanes) with 8 handler threads
# or goroutines and 16 slots (8 + 8 prefetched, the Workers' default for
# concurrency 8), on one throwaway valkey-server; prints jobs/s, medians of
# RUNS runs, and the ratio to the C engine. The C engine runs twice: with
# its default latency-bounded prefetch and with a fixed prefetch
# (target_wait_ms = 0), each at the bench's 16 slots and at 128 (deep).
#
#   bench/workers/run.sh [N=50000] [RUNS=3]
#
# Then the tasks layers and tracing against their baselines (tasks.py,
# tracing.py, go/tasks, go/tracing), on the same server.
#
# Needs libechomq installed in $ECHOMQ_BUILD_DIR/prefix (default build/prefix;
# built here if missing) and the echomq Python package of the same build
# (`python3 -m pip install .`).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${ECHOMQ_BUILD_DIR:-$root/build}
n=${1:-50000}
runs=${2:-3}
threads=8
slots=16
export PATH="$PATH:/usr/local/go/bin"

# shellcheck source=../../scripts/prefix.sh
. "$root/scripts/prefix.sh"
export LD_LIBRARY_PATH="$build/prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

work=$(mktemp -d)
server="$work/valkey"
trap 'bash "$root/tests/valkey-server.sh" stop "$server" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
# shellcheck disable=SC2046
cc -O2 -o "$work/engine" "$here/engine.c" $(pkg-config --cflags --libs echomq) -lpthread
(cd "$here/go" && go build -o "$work/workerbench" . && go build -o "$work/tasksbench" ./tasks &&
  go build -o "$work/tracingbench" ./tracing)
# The Python package must be this build's: same version and key layout.
pycheck() {
  python3 -c 'import echomq; print(echomq.version(), getattr(echomq, "KEY_LAYOUT", 0))'
}
want="$(sed -n 's/^#define ECHOMQ_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' \
  "$build/prefix/include/echomq/common.h" | paste -sd.) \
$(sed -n 's/^#define ECHOMQ_KEY_LAYOUT \([0-9]*\)$/\1/p' "$build/prefix/include/echomq/common.h")"
if [ "$(pycheck)" != "$want" ]; then
  echo "the echomq Python package is $(pycheck), the build is $want: pip install . first" \
    "(or point PYTHONPATH at this build's package)" >&2
  exit 1
fi
url=$(bash "$root/tests/valkey-server.sh" start "$server")

enqueue() {  # N jobs over 100 lanes into queue $1, in batches of 1,000
  "$work/engine" enqueue "$url" "$1" "$n"
}

declare -A results
for r in $(seq 1 "$runs"); do
  for impl in c c-fixed c-deep c-deep-fixed python go; do
    q="bench.workers.$impl.$r.$$"
    enqueue "$q"
    case $impl in
      c) out=$("$work/engine" "$url" "$q" "$n" "$threads" "$slots") ;;
      c-fixed) out=$("$work/engine" "$url" "$q" "$n" "$threads" "$slots" 0) ;;
      c-deep) out=$("$work/engine" "$url" "$q" "$n" "$threads" 128) ;;
      c-deep-fixed) out=$("$work/engine" "$url" "$q" "$n" "$threads" 128 0) ;;
      python)
        [ "$(pycheck)" = "$want" ] || { echo "the echomq Python package changed during the run" >&2; exit 1; }
        out=$(python3 "$here/worker.py" "$url" "$q" "$n" "$threads") ;;
      go) out=$("$work/workerbench" "$url" "$q" "$n" "$threads") ;;
    esac
    rate=${out#jobs_per_s }
    results[$impl]="${results[$impl]:-} $rate"
    echo "run $r $impl: $rate jobs/s" >&2
  done
done

median() { tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
c=$(echo "${results[c]}" | median)
printf "%-28s %10s %8s\n" "drain of $n jobs, 8 handlers" "jobs/s" "ratio"
for impl in c c-fixed c-deep c-deep-fixed python go; do
  m=$(echo "${results[$impl]}" | median)
  label=$impl
  case $impl in
    c) label="C engine, 8 threads" ;;
    c-fixed) label="C engine, fixed prefetch" ;;
    c-deep) label="C engine, 128 slots" ;;
    c-deep-fixed) label="C engine, 128 slots, fixed" ;;
    python) label="Python Worker, concurrency 8" ;;
    go) label="Go Worker, Concurrency 8" ;;
  esac
  printf "%-28s %10s %8s\n" "$label" "$m" "$(awk -v a="$m" -v b="$c" 'BEGIN {printf "%.2f", a / b}')"
done
# Latency-bounded prefetch against the fixed one it replaced (>= 0.9 wanted).
ratio() {
  awk -v a="$(echo "${results[$1]}" | median)" -v b="$(echo "${results[$2]}" | median)" \
    'BEGIN {printf "%.2f", a / b}'
}
echo "latency-bounded / fixed prefetch: $(ratio c c-fixed) at $slots slots, $(ratio c-deep c-deep-fixed) at 128"
# The layers over the Workers, each against its own baseline in one run: the
# tasks (App.worker, Mux; >= 0.9x) and OpenTelemetry tracing (>= 0.8x).
python3 "$here/tasks.py" "$url" "$n" "$runs"
python3 "$here/tracing.py" "$url" "$n" "$runs"
echo "Go $("$work/tasksbench" "$url" "$n" "$runs")"
echo "Go $("$work/tracingbench" "$url" "$n" "$runs")"
