#!/usr/bin/env bash
# Breaks one guarantee on purpose, runs a chaos run against the broken
# library and checks that the checker reports it; then restores the tree and
# the build, also on an error. Never part of CI: it edits the checkout.
#   tests/chaos/break.sh stale-token|ring-fix|limit [SEED] [SECONDS]
# The patches (tests/chaos/breaks/*.patch) change lua/ only. The C workload
# (producer, engine, claimer: echomq_chaos_client, relinked here) runs the
# broken scripts; the Python and Go processes keep their own copy of the
# library (the installed package, build/prefix), so the broken calls are the
# C processes' among correct ones, as with one bad client in a fleet.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${ECHOMQ_BUILD_DIR:-$root/build}
python=${PYTHON:-python3}
name=${1:?usage: break.sh stale-token|ring-fix|limit [SEED] [SECONDS]}
seed=${2:-7}
secs=${3:-30}
patch="$here/breaks/$name.patch"
[ -f "$patch" ] || { echo "no such break: $patch" >&2; exit 2; }
git -C "$root" apply --check "$patch"
restore() {
  git -C "$root" apply -R "$patch"
  cmake --build "$build" -j2 --target echomq_chaos_client >/dev/null
  echo "break.sh: $name undone, echomq_chaos_client rebuilt"
}
git -C "$root" apply "$patch"
trap restore EXIT
cmake --build "$build" -j2 --target echomq_chaos_client >/dev/null
out=$(mktemp -d "/tmp/emq-break-$name-XXXXXX")
set +e
"$python" "$here/chaos.py" run --seed "$seed" --duration "$secs" --out "$out/run"
rc=$?
set -e
if [ "$rc" = 1 ]; then
  echo "break.sh: the checker caught '$name' (run directory $out/run)"
else
  echo "break.sh: the checker did NOT catch '$name' (exit $rc; run directory $out/run)" >&2
  exit 1
fi
