#!/usr/bin/env bash
# EchoMQ's Go Worker side by side with asynq, concurrency 8 each, on one
# throwaway valkey-server; prints one table with ratios (main.go says what
# is measured).
#
#   bench/peers/go/run.sh [gopeers flags]
#   bench/peers/go/run.sh -smoke      (small sizes, correctness only: CI)
#
# asynq comes from the Go module proxy into this module of its own (go.mod,
# go.sum); it is never a dependency of the library. Needs libechomq installed
# in $ECHOMQ_BUILD_DIR/prefix (default build/prefix).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${ECHOMQ_BUILD_DIR:-$root/build}
export PATH="$PATH:/usr/local/go/bin"

# shellcheck source=../../../scripts/prefix.sh
. "$root/scripts/prefix.sh"
export LD_LIBRARY_PATH="$build/prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# Go's build cache does not see a changed C library: a stamp of it in the
# cgo flags relinks when libechomq changes (as scripts/test.sh does).
stamp=$(cat "$build"/prefix/include/echomq/*.h "$build/prefix/lib/libechomq.a" | sha256sum | cut -c1-16)
export CGO_CPPFLAGS="${CGO_CPPFLAGS:+$CGO_CPPFLAGS }-DECHOMQ_LIB_STAMP=$stamp"

work=$(mktemp -d)
trap 'bash "$root/tests/valkey-server.sh" stop "$work/valkey" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
(cd "$here" && go build -o "$work/gopeers" .)
url=$(bash "$root/tests/valkey-server.sh" start "$work/valkey")
echo "valkey-server at $url (load: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
"$work/gopeers" -url "$url" "$@"
