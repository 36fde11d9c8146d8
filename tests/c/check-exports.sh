#!/usr/bin/env bash
# Checks the dynamic symbol table of libechomq:
#   - every defined, exported symbol starts with echomq_ (the version node
#     itself, an absolute symbol such as ECHOMQ_0, is allowed);
#   - every function the public headers declare is exported;
#   - the ABI only grows: every symbol of every release's list in
#     EXPORTS_DIR (tests/c/exports/<version>.txt) is still exported, and
#     every exported symbol is in one of those lists (a new symbol is added
#     to the list of the release that brings it);
#   - the SONAME is the expected one.
# usage: check-exports.sh LIBRARY EXPECTED_SONAME INCLUDE_DIR EXPORTS_DIR
set -euo pipefail
lib=${1:?library}
soname=${2:?soname}
include=${3:?include dir}
lists=${4:?exports dir}
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

declared=$(cat "$include"/echomq/*.h | grep -E '^ECHOMQ_API' | grep -oE 'echomq_[a-z0-9_]+\(' | tr -d '(' | sort -u)
missing=$(comm -23 <(echo "$declared") <(echo "$exported"))
if [ -n "$missing" ]; then
  echo "FAIL: declared in the headers but not exported:" >&2
  sed 's/^/  /' <<<"$missing" >&2
  status=1
fi

known=$(cat "$lists"/*.txt | grep -v '^#' | grep -v '^$' | sort -u)
if [ -z "$known" ]; then
  echo "FAIL: no release lists in $lists" >&2
  exit 1
fi
removed=$(comm -23 <(echo "$known") <(echo "$exported"))
if [ -n "$removed" ]; then
  echo "FAIL: exported by an earlier release, gone now (the ABI may only grow):" >&2
  sed 's/^/  /' <<<"$removed" >&2
  status=1
fi
unlisted=$(comm -13 <(echo "$known") <(echo "$exported"))
if [ -n "$unlisted" ]; then
  echo "FAIL: exported but in no release list of $lists (add them to this release's list):" >&2
  sed 's/^/  /' <<<"$unlisted" >&2
  status=1
fi

actual_soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
if [ "$actual_soname" != "$soname" ]; then
  echo "FAIL: SONAME is '$actual_soname', expected '$soname'" >&2
  status=1
fi

if [ $status -eq 0 ]; then
  echo "ok: $(wc -l <<<"$exported") symbols, all echomq_* and all in the release lists" \
    "($(ls "$lists"/*.txt | xargs -n1 basename | paste -sd' ')); $(wc -l <<<"$declared") declared functions exported; SONAME $actual_soname"
fi
exit $status
