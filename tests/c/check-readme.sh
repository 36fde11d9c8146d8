#!/usr/bin/env bash
# The map of the C/C++ tests cannot drift from the tree: every test source
# under tests/c (*.cpp, *.hpp, *.c, *.sh, the support/ helpers too) is named
# in the first column of README.md's "What is where" table, in one row only,
# and every file that table names exists. Every other path the README names
# in backquotes (with a slash and an extension) exists too, under tests/c or
# the repository root. No server needed.
# usage: check-readme.sh [TESTS_C_DIR]   (default: this script's directory)
set -euo pipefail
dir=$(cd "${1:-$(dirname "$0")}" && pwd)
root=$(cd "$dir/../.." && pwd)
readme=$dir/README.md
[[ -f $readme ]] || { echo "FAIL: no $readme" >&2; exit 1; }

# The backquoted names in the first cell of each row of the table.
listed=$(awk '
  /^## / { inside = ($0 == "## What is where") ; next }
  inside && /^\| *`/ {
    split($0, cell, "|")
    s = cell[2]
    while (match(s, /`[^`]+`/)) {
      print substr(s, RSTART + 1, RLENGTH - 2)
      s = substr(s, RSTART + RLENGTH)
    }
  }' "$readme" | sort)
[[ -n $listed ]] || { echo "FAIL: no table rows under \"## What is where\" in $readme" >&2; exit 1; }

on_disk=$(cd "$dir" && find . -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.c' -o -name '*.sh' \) |
          sed 's|^\./||' | sort)

status=0
while read -r f; do
  [[ -n $f ]] || continue
  echo "FAIL: tests/c/$f has no row in tests/c/README.md (\"What is where\")" >&2
  status=1
done < <(comm -23 <(echo "$on_disk") <(echo "$listed" | sort -u))

while read -r f; do
  [[ -n $f ]] || continue
  echo "FAIL: tests/c/README.md names $f in more than one row" >&2
  status=1
done < <(echo "$listed" | uniq -d)

while read -r f; do
  [[ -f $dir/$f ]] && continue
  echo "FAIL: tests/c/README.md has a row for $f, which is not a file under tests/c" >&2
  status=1
done <<<"$listed"

# Paths named anywhere else in the README: under tests/c or the repository root.
while read -r p; do
  [[ -e $dir/$p || -e $root/$p ]] && continue
  echo "FAIL: tests/c/README.md names $p, which exists neither under tests/c nor the repository root" >&2
  status=1
done < <(grep -o '`[^` ]*/[^` ]*\.[A-Za-z0-9]*`' "$readme" | tr -d '`' | sort -u)

n=$(echo "$on_disk" | wc -l)
[[ $status -eq 0 ]] && echo "ok: the $n test sources under tests/c each have one row in README.md, and every file it names exists"
exit "$status"
