#!/usr/bin/env bash
# The cost of outcomes in server instructions per job (bench/callgrind.sh):
# the drain of a build without them (BASE, the bench of the commit before
# outcomes), this build with them off, with retention and results, with
# events, and with both, in one run; prints each and the ratios to BASE.
#   usage: bench/outcomes_cost.sh BASE_BENCH [THIS_BENCH]   (env as bench/callgrind.sh)
# BASE_BENCH: e.g. git archive f7be845 | tar -x -C /tmp/base, then
#   cmake -S /tmp/base -B /tmp/base/build -DECHOMQ_BUILD_BENCH=ON && cmake --build /tmp/base/build --target echomq_bench
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: bench/outcomes_cost.sh BASE_BENCH [THIS_BENCH]}
this=${2:-build/bench/echomq_bench}
per_job() { awk '/server instructions per job of the drain/ { sub("k", "", $(NF-7)); print $(NF-7) }'; }
b=$(bench/callgrind.sh "$base" 2>/dev/null | per_job)
off=$(bench/callgrind.sh "$this" 2>/dev/null | per_job)
keep=$(COMPARE="--outcomes keep" bench/callgrind.sh "$this" 2>/dev/null | per_job)
events=$(COMPARE="--outcomes events" bench/callgrind.sh "$this" 2>/dev/null | per_job)
on=$(COMPARE="--outcomes on" bench/callgrind.sh "$this" 2>/dev/null | per_job)
awk -v b="$b" -v off="$off" -v keep="$keep" -v ev="$events" -v on="$on" 'BEGIN {
  printf "drain, server instructions per job: before %.1fk; outcomes off %.1fk (%.3fx); retention with results %.1fk (%.2fx); events %.1fk (%.2fx); both %.1fk (%.2fx)\n",
    b, off, off / b, keep, keep / b, ev, ev / b, on, on / b }'
