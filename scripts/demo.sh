#!/usr/bin/env bash
# Runs the noisy-neighbour demo against a throwaway valkey-server.
#
#   scripts/demo.sh [demo options]     e.g. scripts/demo.sh --ascii
#
# Needs a built tree (BUILD_DIR, default ./build: cmake -S . -B build &&
# cmake --build build). Starts valkey-server with tests/valkey-server.sh,
# runs build/examples/demo/echomq_demo, and always stops the server and
# removes its files. The only thing left behind is the SVG (default
# ./echomq-demo.svg, or DEMO_SVG=path). Exits non-zero if anything failed.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-build}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
demo="$build/examples/demo/echomq_demo"
svg=${DEMO_SVG:-$PWD/echomq-demo.svg}

if [ ! -x "$demo" ]; then
  echo "demo.sh: $demo not found; build first: cmake -S . -B build && cmake --build build -j2" >&2
  exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/echomq-demo.XXXXXX")
cleanup() { "$root/tests/valkey-server.sh" stop "$tmp/valkey" >/dev/null 2>&1 || true; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

url=$("$root/tests/valkey-server.sh" start "$tmp/valkey")
"$demo" --url "$url" --svg "$svg" "$@"
