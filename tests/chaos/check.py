"""The checker: reads a run directory (every process's history, the
nemesis's faults, the final state) and reports every violation of the
guarantees, each with the seed and an excerpt of the history.

The rules (tests/chaos/README.md, "What the checker checks"):

- lost          an acknowledged enqueue that did not end completed or dead,
                outside a loss window
- unfinished    a job still pending, leased or delayed after the drain
- refused_ran   an enqueue refused with a status that promises nothing was
                written (any error but ETIMEOUT) whose payload was delivered
- twice         a job completed twice: two `completed` entries in the server's
                event stream, or two accepted acks by plain claimers, that
                were seen outside every loss window
- stale         a settlement accepted from a holder that was not the job's
                current delivery: a plain claimer's accepted settle sent after
                a later token was handed out, or a completed job whose result
                (written by its holder: "who:token") names another token than
                the job's record
- token_reused  two deliveries of one job with one token
- token_order   a delivery claimed after another was handed out, with a
                token that is not greater
- limit         a sample of the server's lane figures with a lane or a
                tenant above its limit
- verify        `verify` not clean at the end, before any repair
- tick_twice    a schedule's tick fired more than once (twice is allowed
                inside a loss window, as the schedules docs state)

Loss windows: the writes that a fault may take back by the docs
(docs/operations.md, "What survives what"): under appendfsync everysec,
calls answered within EVERYSEC_WINDOW_MS before a kill -9 of the primary;
for a failover, calls answered from FAILOVER_LEAD_MS before it began until
the old primary was demoted (plus FAILOVER_TAIL_MS). Under appendfsync
always a kill -9 has no window.

Features that land later add their rule to RULES (README, "Adding a
feature").
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hist import read_run  # noqa: E402

EVERYSEC_WINDOW_MS = 2500  # Valkey postpones an AOF write up to 2 s behind a slow fsync, + margin
FAILOVER_LEAD_MS = 1000  # replication lag on loopback, with margin
FAILOVER_TAIL_MS = 500
ETIMEOUT = -11
EXCERPT_LINES = 14
FIGURES = ("enqueued", "unknown", "completed", "dead", "lost", "lost_in_window", "duplicated", "redelivered",
           "samples", "ticks", "ticks_refired_in_window", "violations")

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
        if jid and ev in ("deliver", "enq", "settle", "report", "srv", "final"):
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
               faults)


def named_ids(run_dir: Path) -> Set[int]:
    """Every job id a run's history names (the final state looks each up)."""
    ids: Set[int] = set()
    for e in read_run(run_dir):
        if e.get("ev") in ("enq", "deliver", "srv") and e.get("id"):
            ids.add(int(e["id"]))
    return ids


# -- the rules ----------------------------------------------------------------

def rule_lost(run: Run, out: List[Violation], figures: Dict[str, int]) -> None:
    for e in run.enq_ok:
        jid = e["id"]
        f = run.final.get(jid)
        state = f["state"] if f else "unknown"
        if f is not None and state != "absent" and not run.same_job(e, f):
            state = "gone (its id now names another job)"
        elif state in ("completed", "dead"):
            continue
        elif state in ("pending", "leased", "delayed"):
            out.append(Violation("unfinished", jid, f"acknowledged enqueue of {e['pl']} still {state} after the drain"))
            continue
        if run.in_window(e["t1"]):
            figures["lost_in_window"] += 1
            continue
        out.append(Violation("lost", jid, f"enqueue of {e['pl']} answered id {jid} at {e['t1']:.0f}; "
                                          f"at the end the job is {state}"))


def rule_refused_ran(run: Run, out: List[Violation], figures: Dict[str, int]) -> None:
    delivered = {d.get("pl"): key[0] for key, ds in run.deliveries.items() for d in ds}
    for e in run.events:
        if e.get("ev") == "enq" and e.get("rc", 0) < 0 and e["rc"] != ETIMEOUT and e.get("pl") in delivered:
            out.append(Violation("refused_ran", delivered[e["pl"]],
                                 f"enqueue of {e['pl']} answered {e['rc']} (nothing written) but was delivered"))


def rule_twice(run: Run, out: List[Violation], figures: Dict[str, int]) -> None:
    for jid, parts in run.srv.items():
        for es in parts:
            done = [e for e in es if e.get("type") == "completed"]
            if len(done) > 1:
                figures["duplicated"] += 1
                # A completion seen inside a loss window may be a write the
                # fault took back (the stream went with it): at most one may
                # stand outside every window. (Stream ids do not order two
                # primaries' entries: the collector's time does.)
                if sum(1 for e in done if not run.in_window(e["t1"])) > 1:
                    out.append(Violation("twice", jid, f"{len(done)} completed entries in the server's event stream "
                                                       f"(stream ids {[e['sid'] for e in done]})"))
    for key, ss in run.settles.items():
        acks = [s for s in ss if s.get("op") == "ack" and s.get("rc") == 0]
        if sum(1 for s in acks if not run.in_window(s["t1"])) > 1:
            out.append(Violation("twice", key[0], f"{len(acks)} accepted acks: tokens {[s['tok'] for s in acks]}"))


def rule_stale(run: Run, out: List[Violation], figures: Dict[str, int]) -> None:
    for key, ss in run.settles.items():
        ds = run.deliveries.get(key, [])
        for s in ss:
            if s.get("rc") != 0:
                continue
            later = [d for d in ds if d["tok"] > s["tok"] and d["t1"] < s["t0"]]
            if later and not run.window_between(later[0]["t1"], s["t0"]):
                out.append(Violation("stale", key[0], f"{s['op']} by {s['who']} with token {s['tok']} accepted "
                                                      f"after token {later[0]['tok']} was handed to {later[0]['who']}"))
    for jid, f in run.final.items():
        if f.get("state") != "completed" or ":" not in f.get("result", ""):
            continue
        tok = f["result"].rsplit(":", 1)[1]
        if tok.isdigit() and int(tok) != int(f.get("tok", 0)):
            out.append(Violation("stale", jid, f"completed by {f['result']} but the job's current token was "
                                               f"{f.get('tok')}: a stale holder's ack was accepted"))


def rule_tokens(run: Run, out: List[Violation], figures: Dict[str, int]) -> None:
    for key, ds in run.deliveries.items():
        jid = key[0]
        figures["redelivered"] += int(len(ds) > 1)
        seen: Dict[int, Event] = {}
        for d in ds:
            first = seen.get(d["tok"])
            if first is not None and not run.in_window(first["t1"]):
                out.append(Violation("token_reused", jid, f"token {d['tok']} handed to {first['who']} and {d['who']}"))
            seen.setdefault(d["tok"], d)
        plain = [d for d in ds if d.get("how") != "engine"]  # their t0 is the claim's send time
        for d2 in plain:
            for d1 in ds:
                if d1 is d2 or d1["t1"] >= d2["t0"] or d2["tok"] > d1["tok"]:
                    continue
                if run.window_between(d1["t0"], d2["t1"]):
                    continue  # d1's claim may be the write a fault took back (docs: fails safe)
                out.append(Violation("token_order", jid, f"token {d2['tok']} ({d2['who']}, claimed from "
                                                         f"{d2['t0']:.0f}) not above {d1['tok']} ({d1['who']}, "
                                                         f"handed out at {d1['t1']:.0f})"))


def rule_limits(run: Run, out: List[Violation], figures: Dict[str, int]) -> None:
    figures["samples"] = len(run.samples)
    for s in run.samples:
        for group, active, limit in s.get("lanes", []):
            if limit is not None and active > limit:
                out.append(Violation("limit", 0, f"sample at {s['t1']:.0f}: {group!r} active {active} > limit {limit}",
                                     [json.dumps(s)[:400]]))


def rule_verify(run: Run, out: List[Violation], figures: Dict[str, int]) -> None:
    if run.verify is None:
        out.append(Violation("verify", 0, "no final verify was recorded (the run did not finish)"))
    elif run.verify:
        out.append(Violation("verify", 0, f"verify found {len(run.verify)} problems", run.verify[:EXCERPT_LINES]))


def rule_schedules(run: Run, out: List[Violation], figures: Dict[str, int]) -> None:
    """Every schedule tick fires once: the `fired` entries of the event
    stream (issue 36, a no-op until a run's queue has schedules). The
    schedules docs allow a second fire of a tick after a failover lost the
    first: twice is counted inside a loss window, never more."""
    fires: Dict[Tuple[str, str], List[Event]] = defaultdict(list)
    for parts in run.srv.values():
        for es in parts:
            for e in es:
                if e.get("type") == "fired":
                    fires[(e["x"].get("schedule", ""), e["x"].get("tick", ""))].append(e)
    figures["ticks"] = len(fires)
    for (name, tick), es in fires.items():
        if len(es) == 1:
            continue
        if len(es) == 2 and run.in_window(es[0]["t1"]):
            figures["ticks_refired_in_window"] += 1
            continue
        out.append(Violation("tick_twice", es[0]["id"], f"schedule {name!r} tick {tick} fired {len(es)} times",
                             [json.dumps(e, separators=(",", ":"))[:300] for e in es]))


RULES: List[Callable[[Run, List[Violation], Dict[str, int]], None]] = [
    rule_lost, rule_refused_ran, rule_twice, rule_stale, rule_tokens, rule_limits, rule_verify,
    rule_schedules,
    # Cancel and deadlines (issue 37) and flows (38) add theirs here when
    # they land: README, "Adding a feature".
]


# -- the report -----------------------------------------------------------------

@dataclass
class Report:
    run: Run
    violations: List[Violation]
    figures: Dict[str, int]

    def summary(self) -> Dict[str, Any]:
        by_rule: Dict[str, int] = defaultdict(int)
        for v in self.violations:
            by_rule[v.rule] += 1
        return {"seed": self.run.meta.get("seed"), "fsync": self.run.meta.get("fsync"),
                "faults": self.run.meta.get("faults_injected", {}), "figures": self.figures,
                "violations": dict(by_rule), "drained": self.run.meta.get("drained")}

    def text(self) -> str:
        m, f = self.run.meta, self.figures
        lines = [f"reproduce: {m.get('repro', '?')}",
                 f"seed {m.get('seed')}, appendfsync {m.get('fsync')}, faults {m.get('faults_injected', {})}",
                 f"jobs: {f['enqueued']} enqueues acknowledged ({f['unknown']} unknown outcomes), "
                 f"{f['completed']} completed, {f['dead']} dead, {f['lost']} lost "
                 f"({f['lost_in_window']} inside a loss window), {f['duplicated']} completed twice, "
                 f"{f['redelivered']} delivered more than once, {f['samples']} limit samples",
                 f"violations: {len(self.violations)}"]
        shown: Dict[str, int] = defaultdict(int)
        for v in self.violations:
            shown[v.rule] += 1
            if shown[v.rule] > 5:
                continue
            lines.append(f"  [{v.rule}] job {v.job}: {v.what}  (seed {m.get('seed')})")
            excerpt = v.excerpt or [json.dumps(e, separators=(",", ":"))[:300]
                                    for e in self.run.by_job.get(v.job, [])[:EXCERPT_LINES]]
            lines.extend("      " + x for x in excerpt)
        for rule, n in shown.items():
            if n > 5:
                lines.append(f"  [{rule}] ... and {n - 5} more")
        return "\n".join(lines)


def check_run(run_dir: Path) -> Report:
    run = load(Path(run_dir))
    figures: Dict[str, int] = dict.fromkeys(FIGURES, 0)
    figures["enqueued"] = len(run.enq_ok)
    figures["unknown"] = sum(1 for e in run.events if e.get("ev") == "enq" and e.get("rc") == ETIMEOUT)
    states = [f.get("state") for f in run.final.values()]
    figures["completed"] = states.count("completed")
    figures["dead"] = states.count("dead")
    violations: List[Violation] = []
    for rule in RULES:
        rule(run, violations, figures)
    figures["lost"] = sum(1 for v in violations if v.rule == "lost")
    figures["violations"] = len(violations)
    return Report(run, violations, figures)
