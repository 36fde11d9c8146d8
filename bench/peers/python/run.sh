#!/usr/bin/env bash
# EchoMQ's Python workers (threads and echomq.aio) side by side with rq, arq
# and Celery (Redis transport), concurrency 8 each, on one throwaway
# valkey-server; prints one table with ratios (peers.py says what is measured).
#
#   bench/peers/python/run.sh [peers.py options]
#   bench/peers/python/run.sh --smoke      (small sizes, correctness only: CI)
#
# The peers come from PyPI (requirements.txt) into a venv under the build tree
# ($ECHOMQ_BUILD_DIR, default build/peers-venv); they are never dependencies
# of echomq. The venv sees the system site packages: the echomq package
# there (or one installed into the venv) must be this build's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${ECHOMQ_BUILD_DIR:-$root/build}
venv="$build/peers-venv"

args=("$@")
if [ "${1:-}" = "--smoke" ]; then
  args=(--jobs 300 --mem-jobs 300 --heavy 200 --small 9 --small-jobs 5 --backlog 400 --quiet 4
        --quiet-rate 100 --warmup 0.3 --window 1 --max-wait 5 "${@:2}")
fi

if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv --system-site-packages "$venv"
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$here/requirements.txt"

# The echomq package must be this build's: same version and key layout.
want="$(sed -n 's/^#define ECHOMQ_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' \
  "$root/capi/include/echomq/common.h" | paste -sd.) \
$(sed -n 's/^#define ECHOMQ_KEY_LAYOUT \([0-9]*\)$/\1/p' "$root/capi/include/echomq/common.h")"
have=$("$venv/bin/python" -c 'import echomq; print(echomq.version(), echomq.KEY_LAYOUT)' 2>/dev/null || true)
if [ "$have" != "$want" ]; then
  echo "run.sh: the echomq package in $venv is '${have:-missing}', this tree is $want:" \
    "install this build's wheel (pip install .) first" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'bash "$root/tests/valkey-server.sh" stop "$work/valkey" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
url=$(bash "$root/tests/valkey-server.sh" start "$work/valkey")
echo "valkey-server at $url (load: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
"$venv/bin/python" "$here/peers.py" --url "$url" "${args[@]}"
