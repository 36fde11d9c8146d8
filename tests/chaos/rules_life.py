"""The lifecycle's rules (tests/chaos/README.md, "What the checker checks";
docs/operations.md, "Lifecycle"): cancel, start deadlines, time limits, the
queue-wide ceiling and the lanes' burst ceilings.

What a cancel promises, by the state its answer names (`cancel` lines of
the producers, rc 0):

- pending, delayed: the job was taken from where it waited and is dead
  ("canceled") or removed. It is never claimed again and never completes.
- leased: the job is marked. Stopping its handler is cooperative (the
  engine tells it; a handler that never looks runs on), but whatever its
  holder reports next settles it as canceled, as does its lease running
  out: it never completes and is never claimed again. A holder that
  settled before the cancel is not a "leased" answer (the answer is then
  pending, for a fail, or EFINISHED).
- dead: canceled before; nothing changed.
- refused (EFINISHED: completed, dead for another reason, acked and gone;
  EDEPENDS: a flow's parent waiting): nothing is promised here; `lost`
  covers where the job ends.

A cancel answered inside a loss window may be a write the fault took back:
not checked.
"""

from __future__ import annotations

import json
from typing import Dict, List, Optional, Tuple

from run_model import Event, Run, Violation

CANCELED = ("pending", "delayed", "leased", "dead", "waiting")  # waiting: a flow's parent, with its children



def _acked_cancels(run: Run) -> List[Event]:
    return [c for c in run.events if c.get("ev") == "cancel" and c.get("rc") == 0 and c.get("state") in CANCELED
            and not run.in_window(c["t1"])]


def part_of(run: Run, jid: int, pl: str, enq: Optional[Event] = None) -> Optional[List[Event]]:
    """The stream part (the entries from one `enqueued` of the id on) of
    the job enqueued with payload `pl`: its deliveries carry the server's
    enqueue time, as does the final record when it is the same job. An id
    a fault gave again names another job in another part."""
    at = {key[1] for key, ds in run.deliveries.items() if key[0] == jid and any(d.get("pl") == pl for d in ds)}
    f = run.final.get(jid)
    if not at and f is not None and enq is not None and f.get("state") != "absent" and run.same_job(enq, f):
        at.add(f.get("enq_at"))
    parts = run.srv.get(jid, [])
    for part in parts:
        e = part[0] if part else {}
        if e.get("type") == "enqueued" and any(a is not None and abs(e["srv_t"] - a) <= 1 for a in at):
            return part
    return parts[0] if len(parts) == 1 else None


def rule_cancel_ran(run: Run, out: List[Violation], figures: Dict[str, int]) -> None:
    """A job claimed after its cancel was acknowledged: a plain claim sent
    after the answer, or a `claimed` entry after the job's `canceled` entry
    in the server's stream."""
    for c in _acked_cancels(run):
        figures["canceled"] += 1
        for key, ds in run.deliveries.items():
            if key[0] != c["id"]:
                continue
            for d in ds:
                if d.get("pl") != c["pl"] or d.get("how") == "engine" or d["t0"] <= c["t1"]:
                    continue
                if run.window_between(c["t0"], d["t1"]):
                    continue
                out.append(Violation("cancel_ran", c["id"], f"claimed by {d['who']} (token {d['tok']}, claim sent "
                                                            f"at {d['t0']:.0f}) after its cancel ({c['state']}) "
                                                            f"was acknowledged at {c['t1']:.0f}"))
        enq = next((e for e in run.enq_ok if e["id"] == c["id"] and e["pl"] == c["pl"]), None)
        part = part_of(run, c["id"], c["pl"], enq) or []
        if part:
            seen = None
            for e in part:
                if e.get("type") == "canceled":
                    seen = seen or e
                # After in the collector's order too: stream ids do not order
                # two primaries' entries (a failover), the collector's time does.
                elif e.get("type") == "claimed" and seen is not None and e["t1"] > seen["t1"] \
                        and not run.window_between(seen["t1"], e["t1"]):
                    out.append(Violation("cancel_ran", c["id"], f"claimed (attempt {e.get('att')}, stream id "
                                                                f"{e['sid']}) after its canceled entry {seen['sid']}"))


def rule_cancel_done(run: Run, out: List[Violation], figures: Dict[str, int]) -> None:
    """A job whose cancel was acknowledged (pending, delayed, leased, or
    dead before) that did not end dead "canceled" (or removed, when asked
    of a waiting job): it completed, or died of something else."""
    for c in _acked_cancels(run):
        f = run.final.get(c["id"])
        if f is None:
            continue
        ds = run.deliveries.get((c["id"], f.get("enq_at", -1)), [])
        if ds and not any(d.get("pl") == c["pl"] for d in ds):
            continue  # the id names another job at the end (a fault gave it again)
        state, err = f.get("state"), f.get("err") or ""
        removed = c.get("remove") and c["state"] in ("pending", "delayed")
        if removed and state == "absent":
            continue
        if state == "dead" and err.startswith("canceled"):
            continue
        if state == "absent":
            continue  # `lost` reports an acknowledged job that is gone
        what = f"ended {state}" + (f" ({err!r})" if err else "")
        out.append(Violation("cancel_done", c["id"], f"cancel of {c['pl']} acknowledged at {c['t1']:.0f} (it was "
                                                     f"{c['state']}{', remove' if c.get('remove') else ''}), yet it "
                                                     f"{what}"))


def _deadline_jobs(run: Run) -> List[Tuple[Event, List[Event]]]:
    """Each acknowledged enqueue with a start deadline (`ttl`), with the
    stream part of its job."""
    out = []
    for e in run.enq_ok:
        part = part_of(run, e["id"], e["pl"], e) if e.get("ttl") else None
        if part and part[0].get("type") == "enqueued":
            out.append((e, part))
    return out


def _steady(run: Run, t0: float, t1: float) -> bool:
    """No clock step, restart or failover between t0 and t1: the server's
    times of the two are on one clock."""
    if len(set(run.offsets_during(t0, t1))) > 1:
        return False
    return not any(f.get("kind") in ("server_kill", "failover") and f.get("ok") and f["t0"] <= t1 and t0 <= f["t1"]
                   for f in run.faults)


def rule_expired_ran(run: Run, out: List[Violation], figures: Dict[str, int]) -> None:
    """A job claimed at or after its start deadline by the server's clock
    (its `enqueued` entry's time plus its ttl, against its `claimed`
    entry's), or that completed after it died "expired"."""
    for e, part in _deadline_jobs(run):
        enq = next(x for x in part if x.get("type") == "enqueued")
        deadline = enq["srv_t"] + e["ttl"]
        expired = [x for x in part if x.get("type") == "expired"]
        figures["expired"] += bool(expired)
        # The first claim starts the job: the deadline holds for it alone
        # (a retry, or a lapsed lease claimed again, runs after it by right).
        first = next((x for x in part if x.get("type") == "claimed"), None)
        if first is not None and first["srv_t"] >= deadline and _steady(run, e["t0"], first["t1"]) \
                and not run.window_between(e["t0"], first["t1"]):
            out.append(Violation("expired_ran", e["id"], f"first claimed at server time {first['srv_t']}, at or "
                                                         f"after its start deadline {deadline} (enqueued "
                                                         f"{enq['srv_t']}, ttl {e['ttl']} ms)"))
        for x in part:
            if x.get("type") == "completed" and expired and expired[0]["sid"] < x["sid"] \
                    and x["t1"] > expired[0]["t1"] and not run.window_between(expired[0]["t1"], x["t1"]):
                out.append(Violation("expired_ran", e["id"], f"completed ({x['sid']}) after it expired "
                                                             f"({expired[0]['sid']})"))


def rule_timeout_acked(run: Run, out: List[Violation], figures: Dict[str, int]) -> None:
    """A timed-out attempt completed: an attempt the server failed "timed
    out" that also has a `completed` entry, or an engine's delivery whose
    handler was told it ran out of its time limit (a `halted` line, before
    its report) and whose attempt completed: whatever the handler then
    reports, the engine fails the attempt "timed out". (A plain claimer's
    ack past the limit, within its lease, is accepted by design: the server
    holds the limit at the extension and at the lease's lapse.)"""
    for jid, parts in run.srv.items():
        for part in parts:
            tmo = {x.get("att"): x for x in part
                   if x.get("type") == "failed" and x.get("x", {}).get("reason") == "timed out"}
            figures["timed_out"] += len(tmo)
            for x in part:
                # A fault that takes writes back rewinds the job: the attempt
                # number is given again to another delivery.
                if x.get("type") != "completed" or x.get("att") not in tmo:
                    continue
                a, b = sorted((tmo[x["att"]]["t1"], x["t1"]))
                if not run.window_between(a, b):
                    out.append(Violation("timeout_acked", jid, f"attempt {x['att']} completed ({x['sid']}) and also "
                                                               f"failed \"timed out\""))
    told = {(h["who"], int(h["id"]), h["tok"]): h for h in run.events
            if h.get("ev") == "halted" and h.get("why") == "timed out"}
    for key, ds in run.deliveries.items():
        for d in ds:
            h = told.get((d["who"], key[0], d["tok"]))
            if h is None:
                continue
            done = [x for part in run.srv.get(key[0], []) for x in part
                    if x.get("type") == "completed" and x.get("att") == d["att"] and x["t1"] >= d["t1"]]
            if done and not run.window_between(d["t1"], done[0]["t1"]):
                out.append(Violation("timeout_acked", key[0], f"{d['who']}'s handler was told at {h['t1']:.0f} that "
                                                              f"attempt {d['att']} ran out of its time limit, yet the "
                                                              f"attempt completed ({done[0]['sid']})"))


def rule_queue_limit(run: Run, out: List[Violation], figures: Dict[str, int]) -> None:
    """A sample with more jobs leased across the queue than its ceiling."""
    for s in run.samples:
        leased, limit = (s.get("queue") or [0, None])[:2]
        if limit and leased > limit:
            out.append(Violation("queue_limit", 0, f"sample at {s['t1']:.0f}: {leased} jobs leased, over the "
                                                   f"queue-wide ceiling {limit}", [json.dumps(s)[:400]]))


def rule_burst(run: Run, out: List[Violation], figures: Dict[str, int]) -> None:
    """A sample with a lane (or tenant) that has a burst ceiling above it
    (`limit` checks the others against their limit)."""
    for s in run.samples:
        for row in s.get("lanes", []):
            if len(row) > 3 and row[3] and row[1] > row[3]:
                out.append(Violation("burst", 0, f"sample at {s['t1']:.0f}: {row[0]!r} active {row[1]} > its burst "
                                                 f"ceiling {row[3]} (limit {row[2]})", [json.dumps(s)[:400]]))


LIFE_RULES = [rule_cancel_ran, rule_cancel_done, rule_expired_ran, rule_timeout_acked, rule_queue_limit, rule_burst]
