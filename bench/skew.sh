#!/usr/bin/env bash
# The skew workload of two builds, one after the other: `echomq_bench --only
# fairness` (100 lanes, one holding 90% of the jobs, drained by one client:
# the completion position of each small lane's last job, FIFO and lanes; and
# the per-turn weight deviations). One client makes the service order of a
# plain queue deterministic, so every run of both builds must give the same
# positions: any difference is printed and the exit status is 1.
#   usage: bench/skew.sh BASE_BENCH [BENCH]   (BENCH default build/bench/echomq_bench)
#   env:   BASE_LIB=dir   libechomq of the base build (LD_LIBRARY_PATH for it only)
#          QUICK=1        the --quick sizes (5,000 jobs instead of 20,000)
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:?usage: bench/skew.sh BASE_BENCH [BENCH]}
new=${2:-build/bench/echomq_bench}
args=(--only fairness --check)
[ "${QUICK:-0}" = 1 ] && args+=(--quick)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
LD_LIBRARY_PATH=${BASE_LIB:-${LD_LIBRARY_PATH:-}} "$base" "${args[@]}" --json "$dir/base.json" \
  >"$dir/base.log" 2>&1 || { cat "$dir/base.log" >&2; exit 1; }
"$new" "${args[@]}" --json "$dir/new.json" >"$dir/new.log" 2>&1 || { cat "$dir/new.log" >&2; exit 1; }
python3 - "$dir/base.json" "$dir/new.json" <<'EOF'
import json, sys
def figures(path):
    with open(path) as f:
        return {x["name"]: x["runs"] for x in json.load(f)["figures"] if x["section"] == "fairness"}
base, new = figures(sys.argv[1]), figures(sys.argv[2])
moved = 0
print(f"{'fairness figure':<58} {'base runs':>22} {'this build':>22}")
for name in base:
    same = base[name] == new.get(name)
    moved += not same
    fmt = lambda v: ",".join(f"{x:g}" for x in v) if v is not None else "missing"
    print(f"{name:<58} {fmt(base[name]):>22} {fmt(new.get(name)):>22}  {'same' if same else 'MOVED'}")
sys.exit(1 if moved else 0)
EOF
