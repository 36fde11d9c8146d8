# Sourced by scripts that link against the installed library: builds and
# installs libechomq into $build/prefix when it is not there yet, and points
# pkg-config at it. Needs $root and $build set by the caller.
if [ ! -f "$build/prefix/lib/pkgconfig/echomq.pc" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build" -j2 --target echomq echomq_static >/dev/null
  cmake --install "$build" --prefix "$build/prefix" >/dev/null
fi
export PKG_CONFIG_PATH="$build/prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
