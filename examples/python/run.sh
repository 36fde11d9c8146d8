#!/usr/bin/env bash
# Runs the guess-scoring example against its own throwaway valkey-server,
# which is always stopped at the end. Extra arguments go to guess_scorer.py.
#   bash examples/python/run.sh [--mash 1000] [--slots 2] ...
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
python3 -c "import echomq" 2>/dev/null || {
  echo "run.sh: the echomq package is not installed; run: python3 -m pip install $root" >&2
  exit 1
}
dir=$(mktemp -d "${TMPDIR:-/tmp}/emq-example.XXXXXX")
trap 'bash "$root/tests/valkey-server.sh" stop "$dir"' EXIT
url=$(bash "$root/tests/valkey-server.sh" start "$dir")
python3 "$here/guess_scorer.py" --url "$url" "$@"
