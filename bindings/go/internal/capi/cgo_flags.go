package capi

// All cgo flags of the module live in this file.
//
// Default: the static libechomq.a of an installed libechomq, found by
// pkg-config through echomq-static.pc (installed by `cmake --install` beside
// echomq.pc). --static adds what the archive needs: -lhiredis, -lstdc++,
// -lm, -lpthread. The program then runs without libechomq.so and without
// LD_LIBRARY_PATH; hiredis and the C++ runtime come from the system's own
// library path. Set PKG_CONFIG_PATH to <prefix>/lib/pkgconfig for a prefix
// pkg-config does not search by default.
//
// Tag echomq_shared: link the shared libechomq.so through echomq.pc instead
// (one copy of the library for many programs, upgraded without a rebuild).
// The program then needs the library at run time: a system prefix known to
// ld.so, an rpath (CGO_LDFLAGS=-Wl,-rpath,<prefix>/lib) or LD_LIBRARY_PATH.

// #cgo !echomq_shared pkg-config: --static echomq-static
// #cgo echomq_shared pkg-config: echomq
import "C"
