#!/usr/bin/env bash
# Runs a libFuzzer target for a bounded time over the seed corpus.
#   tests/fuzz/run.sh BINARY [SECONDS]
# New inputs go to a temporary directory (the seeds in the repo stay as they
# are). The fuzzer's progress goes to a log there; a success prints its final
# figures, a failure prints the end of the log and keeps the directory with
# the crashing input.
set -euo pipefail
bin=${1:?usage: run.sh BINARY [SECONDS]}
secs=${2:-60}
seeds="$(cd "$(dirname "$0")" && pwd)/corpus"
work=$(mktemp -d /tmp/emq-fuzz-XXXXXX)
mkdir -p "$work/corpus-new"
if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -use_value_profile=1 \
     -print_final_stats=1 -artifact_prefix="$work/" "$work/corpus-new" "$seeds" \
     >"$work/fuzz.log" 2>&1 </dev/null; then
  grep -E '^(Done|stat::)' "$work/fuzz.log" || true
  rm -rf "$work"
else
  tail -n 60 "$work/fuzz.log" >&2
  echo "fuzz: $bin failed; the log and the input are in $work" >&2
  exit 1
fi
