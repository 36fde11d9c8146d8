#!/usr/bin/env bash
# One command on a fresh machine: install every dependency, build EchoMQ and
# run the noisy-neighbour demo against a throwaway valkey-server.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${ECHOMQ_BUILD_DIR:-$PWD/build}
bash scripts/setup-deps.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j2
BUILD_DIR="$build" exec bash scripts/demo.sh "$@"
