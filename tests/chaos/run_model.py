"""A chaos run's history, read and indexed for the checker (check.py and
the rules of each feature, rules_*.py): the loss windows the faults open,
every job's deliveries, settlements and server events, the samples, the
final state. One place for the facts every rule reads.

Loss windows: the writes that a fault may take back by the docs
(docs/operations.md, "What survives what"): under appendfsync everysec,
calls answered within EVERYSEC_WINDOW_MS before a kill -9 of the primary;
for a failover, calls answered from FAILOVER_LEAD_MS before it began until
the old primary was demoted (plus FAILOVER_TAIL_MS). Under appendfsync
always a kill -9 has no window.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Set, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hist import read_run  # noqa: E402

EVERYSEC_WINDOW_MS = 2500  # Valkey postpones an AOF write up to 2 s behind a slow fsync, + margin
FAILOVER_LEAD_MS = 1000  # replication lag on loopback, with margin
FAILOVER_TAIL_MS = 500
ETIMEOUT = -11
EXCERPT_LINES = 14
FIGURES = ("enqueued", "unknown", "completed", "dead", "lost", "lost_in_window", "duplicated", "redelivered",
           "samples", "ticks", "ticks_skipped", "ticks_refired_in_window", "upserts", "flows", "canceled", "expired",
           "timed_out", "violations")

Event = Dict[str, Any]


@dataclass
class Violation:
    rule: str
    job: int
    what: str
    excerpt: List[str] = field(default_factory=list)


Key = Tuple[int, int]  # a job: its id and its server enqueue time (ms)


@dataclass
class Run:
    """A run's history, indexed. A job is keyed by its id and its enqueue
    time (Key): a fault that takes writes back can take back the id counter
    too, and the id is then given again to another job."""

    meta: Dict[str, Any]
    events: List[Event]
    windows: List[Tuple[float, float, str]]
    offsets: List[Tuple[float, int]]  # (client ms, the servers' clock offset from then on)
    by_job: Dict[int, List[Event]]  # every line naming a job id, for excerpts
    enq_ok: List[Event]
    deliveries: Dict[Key, List[Event]]
    settles: Dict[Key, List[Event]]
    srv: Dict[int, List[List[Event]]]  # per id, in stream order, split at each enqueue
    final: Dict[int, Event]
    samples: List[Event]
    verify: Optional[List[str]]
    faults: List[Event]
    cancels: Dict[str, List[Event]]  # the producers' cancels, by the payload of the job

    def in_window(self, t: float) -> Optional[str]:
        for lo, hi, why in self.windows:
            if lo <= t <= hi:
                return why
        return None

    def window_between(self, a: float, b: float) -> Optional[str]:
        for lo, hi, why in self.windows:
            if lo <= b and a <= hi:
                return why
        return None

    def offsets_during(self, t0: float, t1: float) -> List[int]:
        """The clock offsets in force at some time in [t0 - 50, t1 + 50]
        (the shim reads its file every 5 ms)."""
        cur, out = 0, []
        for t, off in self.offsets:
            if t <= t0 - 50:
                cur = off
            elif t <= t1 + 50:
                out.append(off)
        return [cur] + out

    def removed(self, enq: Event) -> bool:
        """Whether the job of acknowledged enqueue `enq` was canceled or
        expired and removed whole, as asked (a cancel with `remove` of a
        waiting job, or a start deadline with `drop`): its stream has the
        `canceled` or `expired` entry saying so, or its producer's cancel
        was answered so."""
        if any(c.get("rc") == 0 and c.get("remove") and c.get("state") in ("pending", "delayed")
               for c in self.cancels.get(enq["pl"], [])):
            return True
        return any(e.get("type") in ("canceled", "expired") and e.get("x", {}).get("removed") == "1"
                   for part in self.srv.get(enq["id"], []) for e in part)

    def same_job(self, enq: Event, fin: Event) -> bool:
        """Whether the final record `fin` is the job `enq` enqueued: one of
        its deliveries carried the enqueue's payload, or (never delivered)
        the server's enqueue time falls inside the call, on the servers'
        clock."""
        ds = self.deliveries.get((fin["id"], fin.get("enq_at", -1)))
        if ds:
            return any(d.get("pl") == enq["pl"] for d in ds)
        # The offset in force then, or none: a restarted server was seen to
        # stamp enqueues with the unshifted clock (README, "Clock steps").
        at = fin.get("enq_at", -1)
        return any(enq["t0"] + off - 50 <= at <= enq["t1"] + off + 50
                   for off in set(self.offsets_during(enq["t0"], enq["t1"]) + [0]))


def _sid(e: Event) -> Tuple[int, int]:
    ms, _, seq = e.get("sid", "0-0").partition("-")
    return int(ms), int(seq or 0)


def load(run_dir: Path) -> Run:
    meta = json.loads((run_dir / "run.json").read_text()) if (run_dir / "run.json").exists() else {}
    events = read_run(run_dir)
    faults = [e for e in events if e.get("ev") == "fault"]
    windows: List[Tuple[float, float, str]] = []
    offsets: List[Tuple[float, int]] = []
    for f in faults:
        if not f.get("ok"):
            continue
        if f["kind"] == "server_kill" and f.get("fsync") == "everysec":
            windows.append((f["crash"] - EVERYSEC_WINDOW_MS, f["crash"], "kill -9 under everysec at %.0f" % f["crash"]))
        elif f["kind"] == "failover":
            windows.append((f["start"] - FAILOVER_LEAD_MS, f["end"] + FAILOVER_TAIL_MS,
                            "failover (%s) %.0f..%.0f" % (f.get("how", "?"), f["start"], f["end"])))
        elif f["kind"] == "clock_step":
            offsets.append((f["t0"], f["offset_ms"]))
        if f["kind"] == "heal":
            offsets.append((f["t1"], 0))
    offsets.sort()
    by_job: Dict[int, List[Event]] = defaultdict(list)
    enq_ok: List[Event] = []
    deliveries: Dict[Key, List[Event]] = defaultdict(list)
    settles: Dict[Key, List[Event]] = defaultdict(list)
    srv_flat: Dict[int, List[Event]] = defaultdict(list)
    final: Dict[int, Event] = {}
    samples: List[Event] = []
    verify: Optional[List[str]] = None
    key_of: Dict[Tuple[str, int, int], Key] = {}  # (who, id, token) -> the delivery's job
    pl_id: Dict[str, int] = {}
    cancels: Dict[str, List[Event]] = defaultdict(list)
    for e in events:
        ev = e.get("ev")
        jid = int(e.get("id") or 0)
        if ev == "deliver":
            key = (jid, int(e.get("enq_at", 0)))
            deliveries[key].append(e)
            key_of[(e["who"], jid, e["tok"])] = key
            pl_id.setdefault(e.get("pl", ""), jid)
        elif ev == "enq" and e.get("rc") == 0 and jid:
            enq_ok.append(e)
        elif ev == "settle":
            settles[key_of.get((e["who"], jid, e["tok"]), (jid, -1))].append(e)
        elif ev == "srv" and jid:
            srv_flat[jid].append(e)
        elif ev == "final":
            final[jid] = e
        elif ev == "sample":
            samples.append(e)
        elif ev == "verify":
            verify = e.get("lines", [])
        elif ev == "cancel":
            cancels[e.get("pl", "")].append(e)
        if jid and ev in ("deliver", "enq", "settle", "report", "srv", "final", "cancel", "halted"):
            by_job[jid].append(e)
    # An enqueue with an unknown or refused outcome names its job only by
    # its payload: file it under the id that payload was delivered with.
    for e in events:
        if e.get("ev") == "enq" and e.get("rc") != 0 and e.get("pl") in pl_id:
            by_job[pl_id[e["pl"]]].append(e)
    srv: Dict[int, List[List[Event]]] = {}
    for jid, es in srv_flat.items():
        es.sort(key=_sid)
        parts: List[List[Event]] = [[]]
        for e in es:
            if e.get("type") == "enqueued" and parts[-1]:
                parts.append([])
            parts[-1].append(e)
        srv[jid] = parts
    return Run(meta, events, windows, offsets, by_job, enq_ok, deliveries, settles, srv, final, samples, verify,
               faults, cancels)


def named_ids(run_dir: Path) -> Set[int]:
    """Every job id a run's history names (the final state looks each up)."""
    ids: Set[int] = set()
    for e in read_run(run_dir):
        if e.get("ev") in ("enq", "deliver", "srv") and e.get("id"):
            ids.add(int(e["id"]))
    return ids


