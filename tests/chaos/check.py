"""The checker: reads a run directory (every process's history, the
nemesis's faults, the final state: run_model.py) and reports every violation
of the guarantees, each with the seed and an excerpt of the history.

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
- the schedules' rules (tick_twice, tick_order, tick_count, tick_lost,
  tick_overlap, upsert_changed): rules_sched.py
- flow_early (a flow's parent claimed before its last child ended):
  rules_flows.py
- the lifecycle's rules (cancel_ran, cancel_done, expired_ran,
  timeout_acked, queue_limit, burst): rules_life.py

The loss windows, inside which the docs allow a write to be taken back,
are in run_model.py. Features that land later add their rules to RULES
(README, "Adding a feature").
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run_model import (EXCERPT_LINES, ETIMEOUT, FIGURES, Event, Run, Violation, load,  # noqa: E402,F401
                       named_ids)
from rules_flows import FLOW_RULES  # noqa: E402
from rules_life import LIFE_RULES  # noqa: E402
from rules_sched import SCHEDULE_RULES  # noqa: E402


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
        elif state == "absent" and run.removed(e):
            continue  # canceled or expired, and removed as its cancel or enqueue asked: finished
        elif state in ("pending", "leased", "delayed", "waiting"):
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
        for row in s.get("lanes", []):
            group, active, limit = row[:3]
            if len(row) > 3 and row[3]:
                continue  # a burst ceiling above the limit: rules_life.py, `burst`
            if limit is not None and active > limit:
                out.append(Violation("limit", 0, f"sample at {s['t1']:.0f}: {group!r} active {active} > limit {limit}",
                                     [json.dumps(s)[:400]]))


def rule_verify(run: Run, out: List[Violation], figures: Dict[str, int]) -> None:
    if run.verify is None:
        out.append(Violation("verify", 0, "no final verify was recorded (the run did not finish)"))
    elif run.verify:
        out.append(Violation("verify", 0, f"verify found {len(run.verify)} problems", run.verify[:EXCERPT_LINES]))


RULES: List[Callable[[Run, List[Violation], Dict[str, int]], None]] = [
    rule_lost, rule_refused_ran, rule_twice, rule_stale, rule_tokens, rule_limits, rule_verify,
    *SCHEDULE_RULES,
    *FLOW_RULES,
    *LIFE_RULES,
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
                 f"schedules: {f['ticks']} ticks fired, {f['ticks_skipped']} skipped, "
                 f"{f['ticks_refired_in_window']} fired again after a loss window, {f['upserts']} upserts; "
                 f"{f['flows']} flows",
                 f"lifecycle: {f['canceled']} cancels acknowledged, {f['expired']} jobs expired, "
                 f"{f['timed_out']} attempts timed out",
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
