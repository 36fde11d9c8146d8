"""The checker's rules for periodic schedules (docs/operations.md, "Periodic
jobs"), over the `fired` and `skipped` entries of the queue's event stream
(the collector's `srv` lines) and the producers' `upsert` lines:

- tick_twice      a tick fired more than once; twice only when the first
                  fire was seen inside a loss window (the docs: a failover
                  that takes a fire back may fire the tick again, so a tick
                  runs at most twice)
- tick_order      a schedule handled (fired or skipped) a tick at or before
                  a tick it had handled already (the docs: "never fires one
                  at or before it"; a clock step back makes it silent, not
                  repeat), outside a loss window
- tick_count      ticks of a schedule's grid left unaccounted: between two
                  handlings every tick of the grid is fired or skipped with
                  a stated reason (missed, late, overlap, full, duplicate),
                  one each, outside a loss window
- tick_lost       a fired tick's job that did not end completed or dead (or
                  is not the job the fire made), unless the fire was seen
                  inside a loss window
- tick_overlap    a tick of an `overlap = skip` schedule fired while the job
                  of its previous tick had not ended, outside a loss window
- upsert_changed  an upsert of a schedule's unchanged spec that reported a
                  change (the docs: the same spec changes nothing)
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Dict, List, Optional, Tuple

from run_model import Event, Run, Violation

TERMINAL = ("completed", "dead", "deleted")


class Spec:
    """One of the run's schedules, from its form in run.json
    ("name|lane|every_ms|cron|missed|grace_ms|overlap", chaos.py)."""

    def __init__(self, text: str) -> None:
        f = text.split("|")
        self.name, self.lane, self.cron, self.overlap = f[0], f[1], f[3], f[6]
        self.period: Optional[int] = int(f[2]) or None
        if self.period is None and self.cron.startswith("*/") and self.cron.endswith(" * * * * *"):
            self.period = int(self.cron[2:].split(" ")[0]) * 1000  # "*/N" seconds: a grid of N s


def _line(e: Event) -> str:
    return json.dumps(e, separators=(",", ":"))[:300]


def handlings(run: Run) -> Dict[str, List[List[Event]]]:
    """Per schedule, its handlings in the order the collector saw them: the
    entries one fire made (a `fired`, a `skipped`, or both, for one tick at
    one server time)."""
    out: Dict[str, List[List[Event]]] = defaultdict(list)
    for e in run.events:
        if e.get("ev") != "srv" or e.get("type") not in ("fired", "skipped"):
            continue
        name, tick = e["x"].get("schedule", ""), int(e["x"].get("tick", 0))
        e["tick"] = tick
        hs = out[name]
        if hs and hs[-1][0]["tick"] == tick and hs[-1][0]["srv_t"] == e["srv_t"]:
            hs[-1].append(e)
        else:
            hs.append([e])
    return out


def _fired(h: List[Event]) -> List[Event]:
    return [e for e in h if e["type"] == "fired"]


def _count(h: List[Event]) -> int:
    """The ticks one handling accounts for: each fire, and each skipped."""
    return len(_fired(h)) + sum(int(e["x"].get("count", 0)) for e in h if e["type"] == "skipped")


def rule_ticks(run: Run, out: List[Violation], figures: Dict[str, int]) -> None:
    specs = {s.name: s for s in map(Spec, run.meta.get("schedules", []))}
    first_next = {e["name"]: e.get("next", 0) for e in run.events
                  if e.get("ev") == "upsert" and e.get("who") == "setup" and e.get("rc") == 0}
    fires: Dict[Tuple[str, int], List[Event]] = defaultdict(list)
    for name, hs in handlings(run).items():
        spec = specs.get(name)
        prev: Optional[List[Event]] = None
        for h in hs:
            f = _fired(h)
            if f:
                fires[(name, h[0]["tick"])].extend(f)
            figures["ticks"] += len(f)
            figures["ticks_skipped"] += _count(h) - len(f)
            if prev is not None and run.window_between(prev[0]["t1"], h[0]["t1"]):
                prev = h  # a fault between them may have taken the earlier one back
                continue
            a = prev[0]["tick"] if prev else (first_next.get(name, 0) - (spec.period or 0) if spec else 0)
            b = h[0]["tick"]
            if prev is not None and (b < a or (b == a and not (f and _fired(prev)))):
                out.append(Violation("tick_order", 0, f"schedule {name!r} handled tick {b} after tick {a}",
                                     [_line(e) for e in prev + h]))
            elif spec and spec.period and a > 0 and b > a:
                want, got = (b - a) / spec.period, _count(h)
                if want != got:
                    out.append(Violation("tick_count", 0, f"schedule {name!r}: {want:g} ticks of its grid from {a} "
                                                          f"to {b}, {got} fired or skipped",
                                         [_line(e) for e in (prev or []) + h]))
            prev = h
    for (name, tick), es in fires.items():
        if len(es) == 1:
            continue
        if len(es) == 2 and run.in_window(es[0]["t1"]):
            figures["ticks_refired_in_window"] += 1
            continue
        out.append(Violation("tick_twice", es[0]["id"], f"schedule {name!r} tick {tick} fired {len(es)} times",
                             [_line(e) for e in es]))


def rule_tick_jobs(run: Run, out: List[Violation], figures: Dict[str, int]) -> None:
    """Every fired tick's job ends completed or dead; an overlap = skip
    schedule fires only once its previous tick's job has ended."""
    specs = {s.name: s for s in map(Spec, run.meta.get("schedules", []))}
    pos = {id(e): i for i, e in enumerate(run.events)}
    for name, hs in handlings(run).items():
        prev: Optional[Event] = None
        for f in (f for h in hs for f in _fired(h)):
            jid = int(f["id"])
            fin = run.final.get(jid, {})
            made_at = f["tick"] + int(f["x"].get("late", 0))  # the fire's `now`: the job's enqueue time
            if (fin.get("state") not in ("completed", "dead") or fin.get("enq_at") != made_at) \
                    and not run.in_window(f["t1"]):
                state = fin.get("state", "unknown") if fin.get("enq_at") == made_at else "gone"
                out.append(Violation("tick_lost", jid, f"schedule {name!r} tick {f['tick']} fired job {jid}; "
                                                       f"at the end it is {state}"))
            spec = specs.get(name)
            if spec and spec.overlap == "skip" and prev is not None and not run.window_between(prev["t1"], f["t1"]):
                # The previous job's end: its id's first terminal entry on its
                # lane after its fire, in the collector's order (stream ids do
                # not order two primaries' entries, and a lost job's id may be
                # given again).
                ended = sorted((e for part in run.srv.get(int(prev["id"]), []) for e in part
                                if e.get("type") in TERMINAL and e.get("lane") == prev.get("lane")
                                and pos[id(e)] > pos[id(prev)]), key=lambda e: pos[id(e)])
                if not ended or pos[id(ended[0])] > pos[id(f)]:
                    out.append(Violation("tick_overlap", jid, f"schedule {name!r} (overlap skip) fired tick "
                                                              f"{f['tick']} before job {prev['id']} of tick "
                                                              f"{prev['tick']} ended",
                                         [_line(e) for e in [prev] + ended[:1] + [f]]))
            prev = f


def rule_upserts(run: Run, out: List[Violation], figures: Dict[str, int]) -> None:
    for e in run.events:
        if e.get("ev") != "upsert" or e.get("who") == "setup":
            continue
        figures["upserts"] += 1
        if e.get("rc") == 0 and e.get("changed") != 0 and not run.in_window(e["t1"]):
            out.append(Violation("upsert_changed", 0, f"{e['who']} upserted {e['name']!r} unchanged; the answer "
                                                      f"was changed={e.get('changed')}", [_line(e)]))


SCHEDULE_RULES = [rule_ticks, rule_tick_jobs, rule_upserts]
