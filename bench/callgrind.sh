#!/usr/bin/env bash
# Server instructions per job: a throwaway valkey-server under valgrind
# callgrind, `echomq_bench compare --phase fixed` (JOBS jobs over 100 lanes,
# enqueued in batches of 1,000, drained in batches of BATCH with the acks of
# each batch settled with the next claim), then the program total divided by
# the jobs. Instruction counts do not move with the machine's load, so two
# builds compare in one run each.
# The drain alone: the profile is dumped once the last job is enqueued (its
# arrival is polled, so a few drain calls may land before the dump), and the
# drain's take calls are costed per call, times the calls a whole drain
# makes; the server's timer work (serverCron) is left out.
#   usage: bench/callgrind.sh [path/to/echomq_bench]   (env: JOBS=20000 BATCH=32, EXTRA="server args",
#          COMPARE="more compare args", e.g. "--outcomes on" or "--schedules 10000")
set -euo pipefail
cd "$(dirname "$0")/.."
for t in valgrind callgrind_control callgrind_annotate; do
  command -v "$t" >/dev/null || { echo "bench/callgrind.sh needs $t (Debian: apt-get install valgrind)" >&2; exit 1; }
done
bench=${1:-build/bench/echomq_bench}
jobs=${JOBS:-20000}
batch=${BATCH:-32}
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# shellcheck disable=SC2086  # EXTRA is a list of server arguments
valgrind --tool=callgrind --callgrind-out-file="$dir/cg.out" valkey-server --port "$port" \
  --bind 127.0.0.1 --save "" --appendonly no --dir "$dir" ${EXTRA:-} >/dev/null 2>"$dir/vg.err" &
vg=$!
for _ in $(seq 1 100); do valkey-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.2; done
# shellcheck disable=SC2086  # COMPARE is a list of compare arguments
"$bench" compare --url "valkey://127.0.0.1:$port" --phase fixed --jobs "$jobs" --batch "$batch" ${COMPARE:-} >/dev/null &
run=$!
# The enqueue is done when the queue's `enqueued` counter reaches JOBS. The
# queue of phase fixed is `<prefix>.fixed` (compare's default prefix `cmp`;
# STATS_KEY names another): read by name, as a SCAN of a keyspace holding many
# other keys (COMPARE="--schedules N") would make the dump late.
key=${STATS_KEY:-'emq:{cmp.fixed}:stats'}
while kill -0 "$run" 2>/dev/null; do
  [ -n "$key" ] && [ "$(valkey-cli -p "$port" hget "$key" enqueued)" = "$jobs" ] && break
  sleep 0.05
done
callgrind_control -d "$vg" >/dev/null 2>&1
wait "$run"
valkey-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
wait "$vg" || true
total() { callgrind_annotate --inclusive=yes "$@" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'; }
# (awk reads to the end: an early exit would end the pipe with SIGPIPE)
incl() { callgrind_annotate --inclusive=yes "$2" 2>/dev/null | awk -v f=":$1 " '!v && index($0, f) { gsub(",", "", $1); v = $1 } END { print v + 0 }'; }
first=$dir/cg.out.1  # up to the dump: the enqueue
last=$dir/cg.out     # after it: the drain
all=$(( $(total "$first") + $(total "$last") - $(incl serverCron "$first") - $(incl serverCron "$last") ))
awk -v t="$all" -v n="$jobs" 'BEGIN { printf "%.1fk server instructions per job (enqueue + drain, %d jobs)\n", t / n / 1000, n }'
# take runs as a function (FCALL) where the server allows, else with EVALSHA.
cmd=fcallCommand
[ "$(incl fcallCommand "$last")" = 0 ] && cmd=evalShaCommand
echo "drain calls: $cmd" >&2
evals=$(incl "$cmd" "$last")
calls=$(callgrind_annotate --tree=caller --inclusive=yes "$last" 2>/dev/null | grep -B2 "\*  ???:$cmd" |
  sed -nE 's/.*< [^(]*:call \(([0-9,]+)x\).*/\1/p' | tr -d , | sed -n 1p)
[ -n "$calls" ] || { echo "bench/callgrind.sh: no drain calls found in the profile" >&2; exit 1; }
awk -v e="$evals" -v c="$calls" -v n="$jobs" -v b="$batch" 'BEGIN {
  whole = int((n + b - 1) / b) + 1  # the last call finds the queue empty
  printf "%.1fk per drain call of %d jobs; %.1fk server instructions per job of the drain\n", e / c / 1000, b, e / c * whole / n / 1000 }'
