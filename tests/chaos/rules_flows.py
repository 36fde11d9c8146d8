"""The checker's rule for flows (docs/operations.md, "Flows": a parent runs
once, after its last child finished, never before), over the producers'
`flow` lines (each job of a flow: its name, id and parent's name) and the
event stream as the collector copied it:

- flow_early   a parent claimed before one of its children ended (the
               child's `completed` or `dead` entry), in the collector's
               order, with no loss window between the flow's enqueue and
               that claim

A parent completed twice is `twice` (check.py, as for every job); every
job of an acknowledged flow has an `enq` line too, so `lost`, `unfinished`
and `refused_ran` cover flows as they cover single enqueues. A child's death
(`dead`) is its end whatever its `on_fail` (the parent then runs, or dies
of it: a parent dead-lettered for its child is not a claim).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Dict, List

from run_model import Event, Run, Violation

ENDS = ("completed", "dead")


def rule_flows(run: Run, out: List[Violation], figures: Dict[str, int]) -> None:
    flows = [e for e in run.events if e.get("ev") == "flow" and e.get("rc") == 0]
    if not flows:
        return
    pos = {id(e): i for i, e in enumerate(run.events)}
    srv: Dict[int, List[Event]] = {jid: [e for part in parts for e in part] for jid, parts in run.srv.items()}
    for f in flows:
        figures["flows"] += 1
        ids = {name: jid for name, jid, _ in f["jobs"]}
        children: Dict[str, List[int]] = defaultdict(list)
        for name, jid, parent in f["jobs"]:
            if parent:
                children[parent].append(jid)

        def entries(jid: int, types: tuple) -> List[Event]:
            # This flow's job: entries seen once the flow was sent (an id a
            # loss took back may name an older job too).
            return sorted((e for e in srv.get(jid, []) if e.get("type") in types and e["t1"] >= f["t0"]),
                          key=lambda e: pos[id(e)])

        for parent, kids in children.items():
            claims = entries(ids[parent], ("claimed",))
            if not claims or run.window_between(f["t0"], claims[0]["t1"]):
                continue
            for kid in kids:
                ends = entries(kid, ENDS)
                if not ends or pos[id(ends[0])] > pos[id(claims[0])]:
                    out.append(Violation("flow_early", ids[parent], f"parent {ids[parent]} claimed at "
                                                                    f"{claims[0]['t1']:.0f} before its child {kid} "
                                                                    f"ended"))
                    break


FLOW_RULES = [rule_flows]
