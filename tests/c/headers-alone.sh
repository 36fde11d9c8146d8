#!/usr/bin/env bash
# Every public header stands on its own: each one, included first and alone,
# compiles as strict C99 and as C++11; and the umbrella echomq.h includes
# every topic header, so no user's #include changes when a topic is added.
# usage: headers-alone.sh C_COMPILER CXX_COMPILER INCLUDE_DIR
set -euo pipefail
cc=${1:?c compiler}
cxx=${2:?c++ compiler}
include=${3:?include dir}
status=0
n=0
for h in "$include"/echomq/*.h; do
  name=$(basename "$h")
  n=$((n + 1))
  # A use of one declaration keeps the compiler honest about types, not text.
  src=$(printf '#include <echomq/%s>\nint emq_alone(void);\nint emq_alone(void) { return ECHOMQ_OK + (ECHOMQ_VERSION_NUMBER > 0); }\n' "$name")
  if ! "$cc" -std=c99 -pedantic-errors -Wall -Wextra -Werror -fsyntax-only -I "$include" -x c - <<<"$src"; then
    echo "FAIL: echomq/$name does not compile alone as C99" >&2
    status=1
  fi
  if ! "$cxx" -std=c++11 -pedantic-errors -Wall -Wextra -Werror -fsyntax-only -I "$include" -x c++ - <<<"$src"; then
    echo "FAIL: echomq/$name does not compile alone as C++11" >&2
    status=1
  fi
  if [ "$name" != echomq.h ] && ! grep -q "^#include \"$name\"" "$include/echomq/echomq.h"; then
    echo "FAIL: echomq.h does not include $name" >&2
    status=1
  fi
done
[ $status -eq 0 ] && echo "ok: $n headers compile alone (C99, C++11); echomq.h includes every topic header"
exit $status
