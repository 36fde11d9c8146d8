#!/usr/bin/env bash
# One queue over a three-master Valkey Cluster of its own: plain against
# sharded (bench/src/shards.cpp). Starts the cluster on free loopback ports,
# runs the benchmark, stops every node.
#   bench/shards.sh [--jobs N] [--rounds R]      (BUILD_DIR: default build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
dir=$(mktemp -d)
trap 'bash "$root/tests/valkey-cluster.sh" stop "$dir/cluster"' EXIT
bash "$root/tests/valkey-cluster.sh" start "$dir/cluster" >/dev/null
"$build/bench/echomq_bench_shards" --cluster "$dir/cluster/urls" "$@"
