#!/usr/bin/env bash
# Shows that the checker catches a broken guarantee: applies one patch of
# tests/chaos/breaks/ to a scratch copy of the checkout, builds the C
# workload there against the broken scripts, runs a chaos run with it and
# expects the checker to fail the run with the patch's rule. The checkout,
# its build and the library never see a patch. Never part of CI.
#
#   tests/chaos/break.sh NAME|all [SEED] [SECONDS]
#
# NAME: stale-token, ring-fix, limit, tick-twice, flow-early, cancel-pending,
# cancel-held, expire-late, timeout-ack, queue-limit, burst (breaks/NAME.patch; the rule
# each must trip is in the table below and in the README). The scratch copy
# is $ECHOMQ_BREAK_DIR (default /tmp/emq-break): src/ (the checkout's tracked
# files as they are now, uncommitted changes included, copied only where they
# differ, so the scratch build stays incremental) and build/ (the library, the
# C workload and the clock shim: a first run builds the library, about 5
# minutes at -j2; later runs re-embed the scripts and relink). The patches
# change lua/ (timeout-ack: the engine, cpp/worker.cpp): the C processes
# (echomq_chaos_client: producer, engine, claimer) run the broken code; the
# Python ones keep the installed package's, as one bad client in a fleet. Go stays out (its program would
# need an install of the scratch build).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
scratch=${ECHOMQ_BREAK_DIR:-/tmp/emq-break}
python=${PYTHON:-python3}
[ -x "$root/.venv/bin/python" ] && [ -z "${PYTHON:-}" ] && python="$root/.venv/bin/python"
all_breaks="stale-token ring-fix limit tick-twice flow-early cancel-pending cancel-held expire-late timeout-ack queue-limit burst"
name=${1:?usage: break.sh NAME|all [SEED] [SECONDS] (NAME: $all_breaks)}
seed=${2:-7}
secs=${3:-30}

# The rule each patch must trip (an extended regular expression over the
# report's "[rule]" tags).
expect() {
  case "$1" in
    stale-token) echo 'stale' ;;
    ring-fix) echo 'verify|unfinished' ;;
    limit) echo 'limit' ;;
    tick-twice) echo 'tick_twice' ;;
    flow-early) echo 'flow_early' ;;
    cancel-pending) echo 'cancel_ran' ;;
    cancel-held) echo 'cancel_done' ;;
    expire-late) echo 'expired_ran' ;;
    timeout-ack) echo 'timeout_acked' ;;
    queue-limit) echo 'queue_limit' ;;
    burst) echo 'burst' ;;
    *) return 1 ;;
  esac
}

if [ "$name" = all ]; then
  rc=0
  for n in $all_breaks; do
    "$0" "$n" "$seed" "$secs" || rc=1
  done
  exit $rc
fi
patch="$here/breaks/$name.patch"
want=$(expect "$name") || { echo "no such break: $name" >&2; exit 2; }
[ -f "$patch" ] || { echo "no such patch: $patch" >&2; exit 2; }

# The scratch copy: every tracked file, copied where it differs (a copied
# file gets a new time, so the build sees it; unchanged ones keep theirs).
mkdir -p "$scratch/src"
(cd "$root" && git ls-files -z) | while IFS= read -r -d '' f; do
  [ -f "$root/$f" ] || continue
  if ! cmp -s "$root/$f" "$scratch/src/$f"; then
    mkdir -p "$scratch/src/$(dirname "$f")"
    cp "$root/$f" "$scratch/src/$f"
  fi
done
git -C "$root" apply --check "$patch"
patch -s -d "$scratch/src" -p1 < "$patch"
if [ ! -f "$scratch/build/CMakeCache.txt" ]; then
  cmake -S "$scratch/src" -B "$scratch/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DECHOMQ_BUILD_TESTS=ON \
    -DECHOMQ_BUILD_CLI=OFF -DECHOMQ_BUILD_EXAMPLES=OFF -DECHOMQ_BUILD_BENCH=OFF >/dev/null
fi
echo "break.sh: $name applied to $scratch/src; building the C workload against it"
nice cmake --build "$scratch/build" -j2 --target echomq_chaos_client emq_clock_shift >/dev/null
if grep -q '^+++ b/lua/' "$patch"; then
  grep -q "BROKEN ON PURPOSE" "$scratch/build/lua/scripts_gen.cpp" ||
    { echo "break.sh: the scratch build's scripts do not carry the patch" >&2; exit 2; }
fi

out=$(mktemp -d "/tmp/emq-break-$name-XXXXXX")
set +e
"$python" "$scratch/src/tests/chaos/chaos.py" run --seed "$seed" --duration "$secs" --langs c,py \
  --build "$scratch/build" --out "$out/run"
rc=$?
set -e
tags=$(grep -oE '^  \[[a-z_]+\]' "$out/run/report.txt" 2>/dev/null | sort -u | tr -d ' []' | tr '\n' ' ' || true)
if [ "$rc" = 1 ] && grep -qE "^  \[($want)\]" "$out/run/report.txt"; then
  echo "break.sh: the checker caught '$name' (rules: $tags; run directory $out/run)"
else
  echo "break.sh: the checker did NOT catch '$name' as $want (exit $rc; rules: ${tags:-none}; run directory $out/run)" >&2
  exit 1
fi
