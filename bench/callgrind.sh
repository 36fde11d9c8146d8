#!/usr/bin/env bash
# Server instructions per job: a throwaway valkey-server under valgrind
# callgrind, `echomq_bench compare --phase fixed` (JOBS jobs over 100 lanes,
# enqueued in batches of 1,000, drained in batches of BATCH with the acks of
# each batch settled with the next claim), then the program total divided by
# the jobs. Instruction counts do not move with the machine's load, so two
# builds compare in one run each.
#   usage: bench/callgrind.sh [path/to/echomq_bench]   (env: JOBS=20000 BATCH=32, EXTRA="server args")
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "bench/callgrind.sh needs valgrind (Debian: apt-get install valgrind)" >&2; exit 1; }
bench=${1:-build/bench/echomq_bench}
jobs=${JOBS:-20000}
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# shellcheck disable=SC2086  # EXTRA is a list of server arguments
valgrind --tool=callgrind --callgrind-out-file="$dir/cg.out" valkey-server --port "$port" \
  --bind 127.0.0.1 --save "" --appendonly no --dir "$dir" ${EXTRA:-} >/dev/null 2>"$dir/vg.err" &
vg=$!
for _ in $(seq 1 100); do valkey-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.2; done
"$bench" compare --url "valkey://127.0.0.1:$port" --phase fixed --jobs "$jobs" --batch "${BATCH:-32}" >/dev/null
valkey-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
wait "$vg" || true
total=$(callgrind_annotate "$dir/cg.out" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
awk -v t="$total" -v n="$jobs" 'BEGIN { printf "%.1fk server instructions per job (enqueue + drain, %d jobs)\n", t / n / 1000, n }'
