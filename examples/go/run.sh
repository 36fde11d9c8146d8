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

if [ ! -f "$build/prefix/lib/pkgconfig/echomq.pc" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build" -j2 --target echomq echomq_static >/dev/null
  cmake --install "$build" --prefix "$build/prefix" >/dev/null
fi
# The Go package links libechomq.a by default: no LD_LIBRARY_PATH needed.
export PKG_CONFIG_PATH="$build/prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
# Go's build cache does not notice a rebuilt libechomq: a stamp in the cgo flags does.
stamp=$(cat "$build/prefix/include/echomq/echomq.h" "$build/prefix/lib/libechomq.a" | sha256sum | cut -c1-16)
export CGO_CPPFLAGS="${CGO_CPPFLAGS:+$CGO_CPPFLAGS }-DECHOMQ_LIB_STAMP=$stamp"

server=$(mktemp -d)/valkey
trap 'bash "$root/tests/valkey-server.sh" stop "$server"; rmdir "$(dirname "$server")" 2>/dev/null || true' EXIT
url=$(bash "$root/tests/valkey-server.sh" start "$server")

cd "$here"
go run . -url "$url" "$@"
