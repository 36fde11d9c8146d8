#!/usr/bin/env bash
# Checks the dynamic symbol table of libechomq:
#   - every defined, exported symbol starts with echomq_ (the version node
#     itself, an absolute symbol such as ECHOMQ_0, is allowed);
#   - every function the public headers declare is exported;
#   - the SONAME is the expected one.
# usage: check-exports.sh LIBRARY EXPECTED_SONAME HEADER
set -euo pipefail
lib=${1:?library}
soname=${2:?soname}
header=${3:?header}
status=0

exported=$(nm -D --defined-only "$lib" | awk '
  $2 == "A" && $3 ~ /^ECHOMQ_[0-9_]+$/ { next }   # version node, not a symbol
  { sub(/@.*/, "", $3); print $3 }' | sort -u)
if [ -z "$exported" ]; then
  echo "FAIL: $lib exports no symbols" >&2
  exit 1
fi

stray=$(grep -v '^echomq_' <<<"$exported" || true)
if [ -n "$stray" ]; then
  echo "FAIL: symbols exported without the echomq_ prefix:" >&2
  sed 's/^/  /' <<<"$stray" >&2
  status=1
fi

# The umbrella header and the topic headers beside it.
declared=$(cat "$header" "$(dirname "$header")"/*.h | grep -E '^ECHOMQ_API' | grep -oE 'echomq_[a-z0-9_]+\(' |
  tr -d '(' | sort -u)
missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
if [ -n "$missing" ]; then
  echo "FAIL: declared in the header but not exported:" >&2
  sed 's/^/  /' <<<"$missing" >&2
  status=1
fi

actual_soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
if [ "$actual_soname" != "$soname" ]; then
  echo "FAIL: SONAME is '$actual_soname', expected '$soname'" >&2
  status=1
fi

if [ $status -eq 0 ]; then
  echo "ok: $(wc -l <<<"$exported") symbols, all echomq_*; $(wc -l <<<"$declared") declared functions exported; SONAME $actual_soname"
fi
exit $status
