#!/usr/bin/env bash
# Runs the fan-in example against a throwaway valkey-server:
#   examples/go/run.sh [fanin flags...]      e.g. -duration 10s -workers 8
# Builds and installs libechomq into $ECHOMQ_BUILD_DIR/prefix (default: build/
# at the repository root) if it is not there yet, and always stops the server.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${ECHOMQ_BUILD_DIR:-$root/build}
export PATH="$PATH:/usr/local/go/bin"

# shellcheck source=../../scripts/prefix.sh
. "$root/scripts/prefix.sh"
# The Go package links libechomq.a by default: no LD_LIBRARY_PATH needed.
# Go's build cache does not notice a rebuilt libechomq: a stamp in the cgo flags does.
stamp=$(cat "$build"/prefix/include/echomq/*.h "$build/prefix/lib/libechomq.a" | sha256sum | cut -c1-16)
export CGO_CPPFLAGS="${CGO_CPPFLAGS:+$CGO_CPPFLAGS }-DECHOMQ_LIB_STAMP=$stamp"

server=$(mktemp -d)/valkey
trap 'bash "$root/tests/valkey-server.sh" stop "$server"; rmdir "$(dirname "$server")" 2>/dev/null || true' EXIT
url=$(bash "$root/tests/valkey-server.sh" start "$server")

cd "$here"
go run . -url "$url" "$@"
