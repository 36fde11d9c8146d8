#!/usr/bin/env python3
"""The checker's own test, with no server: from a clean run directory (a
chaos run the checker passed), makes one copy per rule whose history carries
one planted violation (a line changed, added or removed, away from every
loss window), runs the checker over the copy and expects that rule in its
report. It shows every rule can fail, in seconds; break.sh shows the same
for real bugs in the scripts, with a live run.

    python3 tests/chaos/selftest.py RUN_DIR      # exit 0: every plant caught

A rule with no place for its plant (every candidate near a loss window)
fails too: a run that cannot test a rule does not pass it.

CI runs it over the run directory of its first seeded run (scripts/test.sh).
"""

from __future__ import annotations

import copy
import json
import shutil
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Callable, Dict, List, Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import check  # noqa: E402
from rules_sched import Spec, handlings  # noqa: E402
from run_model import Run, load  # noqa: E402

Files = Dict[str, List[dict]]
MARGIN_MS = 3000  # a plant stays this far from every loss window


class NoCandidate(Exception):
    pass


def calm(run: Run, *ts: float) -> bool:
    return all(not run.window_between(t - MARGIN_MS, t + MARGIN_MS) for t in ts)


def pick(xs: List[dict]) -> dict:
    if not xs:
        raise NoCandidate()
    return xs[len(xs) // 2]


def final_of(files: Files, jid: int) -> dict:
    return next(e for e in files["final.jsonl"] if e.get("ev") == "final" and e.get("id") == jid)


def add(files: Files, e: dict) -> None:
    files.setdefault("planted.jsonl", []).append(e)


def later(e: dict, ms: float = 1.0) -> dict:
    x = copy.deepcopy(e)
    x["t1"] = e["t1"] + ms
    if "sid" in x:
        t, _, s = x["sid"].partition("-")
        x["sid"] = f"{t}-{int(s or 0) + 1000}"
    return x


def srv_of(files: Files, pred: Callable[[dict], bool]) -> List[dict]:
    return [e for e in files["collector.jsonl"] if e.get("ev") == "srv" and pred(e)]


# -- the plants: each changes `files` and returns what it did ----------------

def plant_lost(run: Run, files: Files) -> str:
    e = pick([e for e in run.enq_ok if calm(run, e["t1"]) and run.final.get(e["id"], {}).get("state") == "completed"])
    final_of(files, e["id"])["state"] = "absent"
    return f"job {e['id']} (acknowledged) made absent at the end"


def plant_twice(run: Run, files: Files) -> str:
    e = pick(srv_of(files, lambda e: e["type"] == "completed" and calm(run, e["t1"])))
    add(files, later(e, 5))
    return f"a second completed entry for job {e['id']}"


def plant_stale(run: Run, files: Files) -> str:
    f = pick([f for f in files["final.jsonl"] if f.get("state") == "completed" and ":" in f.get("result", "")])
    who, tok = f["result"].rsplit(":", 1)
    f["result"] = f"{who}:{int(tok) + 1}"
    return f"job {f['id']}'s result names token {int(tok) + 1}, not its own"


def plant_token_reused(run: Run, files: Files) -> str:
    ds = pick([ds for ds in run.deliveries.values() if len(ds) >= 2 and calm(run, ds[0]["t0"], ds[-1]["t1"])])
    d = next(x for x in files[f"{ds[1]['who']}.jsonl"] if x.get("ev") == "deliver" and x.get("id") == ds[1]["id"]
             and x.get("tok") == ds[1]["tok"])
    d["tok"] = ds[0]["tok"]
    return f"job {ds[0]['id']}'s second delivery given the first's token {ds[0]['tok']}"


def plant_limit(run: Run, files: Files) -> str:
    def capped(r: list) -> bool:  # a limit and no burst ceiling (`burst` checks those)
        return r[2] is not None and not (len(r) > 3 and r[3])

    s = pick([s for s in files["sampler.jsonl"] if s.get("ev") == "sample" and any(map(capped, s.get("lanes", [])))])
    row = next(r for r in s["lanes"] if capped(r))
    row[1] = row[2] + 1
    return f"a sample with {row[0]!r} active {row[1]} over its limit {row[2]}"


def plant_verify(run: Run, files: Files) -> str:
    next(e for e in files["final.jsonl"] if e.get("ev") == "verify")["lines"] = ["planted: a lane off its ring"]
    return "verify's answer given one problem"


def plant_refused_ran(run: Run, files: Files) -> str:
    e = pick([e for e in run.enq_ok if any(d.get("pl") == e["pl"] for d in
                                           run.deliveries.get((e["id"], run.final.get(e["id"], {}).get("enq_at", -1)),
                                                              []))])
    x = later(e)
    x.update(rc=-1, id=0)
    add(files, x)
    return f"an enqueue of {e['pl']} answered -1 (refused), whose payload was delivered"


def _handlings(run: Run, name: Optional[str] = None) -> Dict[str, List[List[dict]]]:
    hs = handlings(run)
    return {n: h for n, h in hs.items() if name is None or n == name}


def _lone_fires(run: Run, name: Optional[str] = None) -> List[dict]:
    """Fires that are a handling of their own (no skip with them), calm."""
    out = []
    for hs in _handlings(run, name).values():
        for i in range(1, len(hs) - 1):
            h = hs[i]
            if len(h) == 1 and h[0]["type"] == "fired" and calm(run, hs[i - 1][0]["t1"], hs[i + 1][0]["t1"]):
                out.append(h[0])
    return out


def _same(files: Files, e: dict) -> dict:
    return next(x for x in files["collector.jsonl"] if x.get("sid") == e["sid"] and x.get("type") == e["type"])


def plant_tick_twice(run: Run, files: Files) -> str:
    f = pick(_lone_fires(run))
    x = later(_same(files, f), 5)
    x["id"] = int(f["id"]) + 10 ** 9  # another job, as a second fire would make
    add(files, x)
    return f"tick {f['x']['tick']} of {f['x']['schedule']!r} fired a second time"


def plant_tick_order(run: Run, files: Files) -> str:
    for hs in _handlings(run).values():
        for i in range(2, len(hs)):
            a, b = hs[i - 2][0], hs[i][0]
            if calm(run, a["t1"], b["t1"]):
                x = later(_same(files, b), 5)
                x.update(type="skipped", id="", x=dict(x["x"], tick=str(a["tick"]), count="1", reason="late"))
                add(files, x)
                return f"tick {a['tick']} of {a['x']['schedule']!r} handled again after tick {b['tick']}"
    raise NoCandidate()


def plant_tick_count(run: Run, files: Files) -> str:
    f = pick(_lone_fires(run))
    files["collector.jsonl"].remove(_same(files, f))
    return f"the fire of tick {f['x']['tick']} of {f['x']['schedule']!r} removed"


def plant_tick_lost(run: Run, files: Files) -> str:
    f = pick([f for f in _lone_fires(run) if run.final.get(int(f["id"]), {}).get("state") == "completed"])
    final_of(files, int(f["id"]))["state"] = "absent"
    return f"the job of tick {f['x']['tick']} of {f['x']['schedule']!r} made absent at the end"


def plant_tick_overlap(run: Run, files: Files) -> str:
    skip = [s.name for s in map(Spec, run.meta.get("schedules", [])) if s.overlap == "skip"]
    for name in skip:
        fires = [e for h in _handlings(run, name).get(name, []) for e in h if e["type"] == "fired"]
        for f1, f2 in zip(fires, fires[1:]):
            if not calm(run, f1["t1"], f2["t1"]):
                continue
            ends = srv_of(files, lambda e: e.get("id") == f1["id"] and e["type"] in ("completed", "dead")
                          and f1["t1"] < e["t1"] < f2["t1"])
            if ends:
                ends[0]["t1"] = f2["t1"] + 1
                return f"job {f1['id']} of {name!r} made to end after the next tick fired"
    raise NoCandidate()


def plant_upsert_changed(run: Run, files: Files) -> str:
    u = pick([u for name, es in files.items() if name != "setup.jsonl" for u in es
              if u.get("ev") == "upsert" and u.get("rc") == 0 and calm(run, u["t1"])])
    u["changed"] = 2
    return f"{u['who']}'s upsert of {u['name']!r} answered updated"


def plant_flow_early(run: Run, files: Files) -> str:
    for f in (e for e in run.events if e.get("ev") == "flow" and e.get("rc") == 0):
        ids = {name: jid for name, jid, _ in f["jobs"]}
        for name, kid, parent in f["jobs"]:
            if not parent:
                continue
            claims = srv_of(files, lambda e: e.get("id") == ids[parent] and e["type"] == "claimed"
                            and e["t1"] > f["t0"])
            ends = srv_of(files, lambda e: e.get("id") == kid and e["type"] in ("completed", "dead")
                          and e["t1"] > f["t0"])
            if claims and ends and calm(run, f["t0"], claims[0]["t1"]):
                ends[0]["t1"] = claims[0]["t1"] + 1
                return f"child {kid}'s end moved after its parent {ids[parent]}'s claim"
    raise NoCandidate()


def _cancels(run: Run, states: tuple) -> List[dict]:
    return [c for c in run.events if c.get("ev") == "cancel" and c.get("rc") == 0 and c.get("state") in states
            and calm(run, c["t0"]) and run.final.get(c["id"], {}).get("state") == "dead"]


def plant_cancel_ran(run: Run, files: Files) -> str:
    c = pick(_cancels(run, ("pending", "delayed")))
    f = run.final[c["id"]]
    add(files, {"ev": "deliver", "who": "planted", "how": "claim", "id": c["id"], "tok": 10 ** 15, "att": 1,
                "max": 3, "lane": f.get("lane"), "pl": c["pl"], "lease_until": 0, "enq_at": f.get("enq_at", 0),
                "t0": c["t1"] + 10, "t1": c["t1"] + 20})
    return f"job {c['id']} claimed 10 ms after its cancel ({c['state']}) was answered"


def plant_cancel_done(run: Run, files: Files) -> str:
    c = pick(_cancels(run, ("pending", "delayed", "leased")))
    final_of(files, c["id"])["state"] = "completed"
    return f"job {c['id']}, canceled ({c['state']}), made completed at the end"


def plant_expired_ran(run: Run, files: Files) -> str:
    from rules_life import _deadline_jobs, _steady
    for e, part in _deadline_jobs(run):
        for x in part:
            if x.get("type") == "claimed" and calm(run, e["t0"], x["t1"]) and _steady(run, e["t0"], x["t1"]):
                _same(files, x)["srv_t"] = part[0]["srv_t"] + e["ttl"] + 1
                return f"job {e['id']} claimed 1 ms past its start deadline (ttl {e['ttl']} ms)"
    raise NoCandidate()


def plant_timeout_acked(run: Run, files: Files) -> str:
    failed = srv_of(files, lambda e: e["type"] == "failed" and e.get("x", {}).get("reason") == "timed out"
                    and calm(run, e["t1"]))
    if failed:
        x = later(failed[len(failed) // 2], 5)
        x.update(type="completed", x={})
        add(files, x)
        return f"job {x['id']}'s timed-out attempt {x['att']} also completed"
    raise NoCandidate()


def plant_queue_limit(run: Run, files: Files) -> str:
    s = pick([s for s in files["sampler.jsonl"] if s.get("ev") == "sample" and calm(run, s["t1"])])
    limit = (s.get("queue") or [0, None])[1] or 4
    s["queue"] = [limit + 1, limit]
    return f"a sample with {limit + 1} jobs leased over the queue-wide ceiling {limit}"


def plant_burst(run: Run, files: Files) -> str:
    s = pick([s for s in files["sampler.jsonl"] if s.get("ev") == "sample" and calm(run, s["t1"])])
    row = next((r for r in s["lanes"] if len(r) > 3 and r[3]), None)
    if row is None:
        row = ["planted", 0, 2, 3]
        s["lanes"].append(row)
    row[1] = row[3] + 1
    return f"a sample with {row[0]!r} active {row[1]} over its burst ceiling {row[3]}"


PLANTS: Dict[str, Callable[[Run, Files], str]] = {
    "lost": plant_lost, "twice": plant_twice, "stale": plant_stale, "token_reused": plant_token_reused,
    "limit": plant_limit, "verify": plant_verify, "refused_ran": plant_refused_ran,
    "tick_twice": plant_tick_twice, "tick_order": plant_tick_order, "tick_count": plant_tick_count,
    "tick_lost": plant_tick_lost, "tick_overlap": plant_tick_overlap, "upsert_changed": plant_upsert_changed,
    "flow_early": plant_flow_early,
    "cancel_ran": plant_cancel_ran, "cancel_done": plant_cancel_done, "expired_ran": plant_expired_ran,
    "timeout_acked": plant_timeout_acked, "queue_limit": plant_queue_limit, "burst": plant_burst,
}


def read_files(run_dir: Path) -> Files:
    files: Files = {}
    for p in sorted(run_dir.glob("*.jsonl")):
        files[p.name] = []
        for line in p.read_text(errors="replace").splitlines():
            try:
                files[p.name].append(json.loads(line))
            except json.JSONDecodeError:
                pass
    return files


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    src = Path(sys.argv[1])
    base = check.check_run(src)
    if base.violations:
        print(f"selftest: {src} is not a clean run ({len(base.violations)} violations)")
        return 2
    run = load(src)
    failed = 0
    for rule, plant in PLANTS.items():
        files = read_files(src)
        try:
            what = plant(run, files)
        except (NoCandidate, StopIteration):
            print(f"selftest: {rule:15} NOT TESTED: no place away from the loss windows in this run")
            failed += 1
            continue
        with tempfile.TemporaryDirectory(prefix="emq-selftest-") as tmp:
            d = Path(tmp)
            shutil.copy(src / "run.json", d / "run.json")
            for name, es in files.items():
                (d / name).write_text("".join(json.dumps(e, separators=(",", ":")) + "\n" for e in es))
            found = defaultdict(int)
            for v in check.check_run(d).violations:
                found[v.rule] += 1
        ok = rule in found
        failed += not ok
        print(f"selftest: {rule:15} {'caught' if ok else 'MISSED'}: {what} -> {dict(found) or 'no violation'}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
