package capi

// All cgo flags of the module live in this file.
//
// Default: pkg-config finds an installed libechomq (echomq.pc), linked as a
// shared library. Set PKG_CONFIG_PATH to <prefix>/lib/pkgconfig for a
// non-system prefix, and LD_LIBRARY_PATH (or an rpath) to run the result.
//
// Tag echomq_static: link the static libechomq.a of the repository's own
// build, installed with `cmake --install build --prefix build/prefix` at the
// repository root. No pkg-config and no run-time library path are needed.

// #cgo !echomq_static pkg-config: echomq
// #cgo echomq_static CFLAGS: -I${SRCDIR}/../../../../build/prefix/include
// #cgo echomq_static LDFLAGS: ${SRCDIR}/../../../../build/prefix/lib/libechomq.a -lhiredis -lstdc++ -lm -lpthread
import "C"
