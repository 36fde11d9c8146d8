#!/usr/bin/env python3
"""A soak: chaos runs one after another within a wall-clock budget (a run
starts only while it fits), seeds counting up from --seed, appendfsync
alternating always / everysec, then a table of what was injected and what
the checker found.

    python3 tests/chaos/soak.py --hours 1 [--seed 1000] [--run-seconds 60] [--drain 90] [--out DIR]
    python3 tests/chaos/soak.py --recheck --out DIR     # the checker again over kept runs

Each run keeps its directory under DIR (the servers' files only when it
failed); the table goes to stdout and DIR/table.txt, and is rewritten after
every run, so an interrupted soak still has its figures.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from nemesis import FAULTS  # noqa: E402


def table(rows: List[Dict[str, Any]], seconds: float, command: str) -> str:
    faults: Dict[str, int] = {k: 0 for k in FAULTS}
    fig: Dict[str, int] = {}
    failing: List[str] = []
    for r in rows:
        for k, n in r.get("faults", {}).items():
            faults[k] = faults.get(k, 0) + n
        for k, n in r.get("figures", {}).items():
            fig[k] = fig.get(k, 0) + n
        if r.get("violations") or r.get("error"):
            failing.append(f"seed {r.get('seed')} ({r.get('fsync')}): {r.get('violations') or r.get('error')}")
    by_fsync = {m: sum(1 for r in rows if r.get("fsync") == m) for m in ("always", "everysec")}
    out = [f"soak: {len(rows)} runs in {seconds / 3600:.2f} h ({by_fsync['always']} under appendfsync always, "
           f"{by_fsync['everysec']} under everysec)", f"command: {command}", "",
           "| fault injected | count |", "|---|---|"]
    out += [f"| {k} | {n} |" for k, n in faults.items()]
    out += [f"| all faults | {sum(faults.values())} |", "", "| figure | count |", "|---|---|"]
    names = [("enqueued", "enqueues acknowledged"), ("unknown", "enqueues with an unknown outcome (ETIMEOUT)"),
             ("completed", "jobs completed"), ("dead", "jobs dead-lettered (out of attempts or discarded)"),
             ("redelivered", "jobs delivered more than once"),
             ("lost_in_window", "acknowledged enqueues lost inside a stated loss window"),
             ("lost", "acknowledged enqueues lost outside a window"),
             ("duplicated", "jobs completed twice (all inside a loss window unless a violation)"),
             ("samples", "limit samples"), ("ticks", "schedule ticks fired"),
             ("ticks_skipped", "schedule ticks skipped (missed, late, overlap: as the schedules docs state)"),
             ("ticks_refired_in_window", "ticks fired again after a loss window took the first fire back"),
             ("upserts", "schedule upserts of an unchanged spec (each must change nothing)"),
             ("flows", "flows enqueued (a parent, 1-4 children, now and then a grandchild)"),
             ("canceled", "cancels acknowledged (of a waiting, delayed, running or canceled job)"),
             ("expired", "jobs past their start deadline (dead \"expired\" or dropped)"),
             ("timed_out", "attempts failed \"timed out\" (past their time limit)"),
             ("violations", "violations")]
    out += [f"| {label} | {fig.get(k, 0)} |" for k, label in names]
    out += ["", "failing seeds: " + ("none" if not failing else "")] + [f"  {x}" for x in failing]
    return "\n".join(out)


def recheck(out: Path) -> int:
    """The table again from the runs kept in `out`, each checked anew (after
    a change of the checker)."""
    import check
    rows = []
    for run_dir in sorted(out.glob("seed-*/"), key=lambda d: int(d.name.split("-")[1])):
        if (run_dir / "run.json").exists():
            s = check.check_run(run_dir).summary()
            (run_dir / "summary.json").write_text(json.dumps(s, indent=1))
            rows.append(s)
    meta = json.loads((out / "soak.json").read_text()) if (out / "soak.json").exists() else {}
    print(table(rows, meta.get("seconds", 0.0), meta.get("command", "?")))
    return 0 if all(not r.get("violations") for r in rows) else 1


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hours", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=1000)
    p.add_argument("--run-seconds", type=float, default=60.0, help="seconds of faults per run (default 60)")
    p.add_argument("--out", default="/tmp/emq-soak")
    p.add_argument("--drain", type=float, default=90.0,
                   help="longest wait for a run's queue to empty (default 90; more on a busy machine)")
    p.add_argument("--build", default=None)
    p.add_argument("--recheck", action="store_true",
                   help="run the checker again over the runs kept in --out and print the table (no new runs)")
    a = p.parse_args()
    out = Path(a.out)
    if a.recheck:
        return recheck(out)
    out.mkdir(parents=True, exist_ok=True)
    command = f"python3 tests/chaos/soak.py --hours {a.hours:g} --seed {a.seed} --run-seconds {a.run_seconds:g}"
    command += f" --drain {a.drain:g}" if a.drain != 90.0 else ""
    start = time.monotonic()
    rows: List[Dict[str, Any]] = []
    seed = a.seed
    text = table(rows, 0.0, command)
    budget = a.hours * 3600
    # A run starts only while it fits in the budget (a run's length guessed
    # from those before it: faults, then set-up, drain and checks).
    while time.monotonic() - start + (a.run_seconds + 60 if not rows else
                                      (time.monotonic() - start) / len(rows)) <= budget:
        fsync = "always" if seed % 2 == 0 else "everysec"
        run_dir = out / f"seed-{seed}"
        cmd = [sys.executable, str(HERE / "chaos.py"), "run", "--seed", str(seed), "--duration", str(a.run_seconds),
               "--fsync", fsync, "--out", str(run_dir), "--drain", str(a.drain)]
        if a.build:
            cmd += ["--build", a.build]
        with open(out / f"seed-{seed}.log", "w") as log:
            rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT).returncode
        summary = run_dir / "summary.json"
        if summary.exists():
            rows.append(json.loads(summary.read_text()))
        else:
            rows.append({"seed": seed, "fsync": fsync, "error": f"exit {rc}, no summary (see {out}/seed-{seed}.log)"})
        text = table(rows, time.monotonic() - start, command)
        (out / "table.txt").write_text(text + "\n")
        (out / "soak.json").write_text(json.dumps({"seconds": time.monotonic() - start, "command": command}))
        seed += 1
    print(text)
    return 0 if all(not r.get("violations") and not r.get("error") for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
