"""The checker's rule for flows (issue 38: a job that waits for its
children), ready for the producers' `flow` lines; it checks nothing until a
run's history has them (README, "Adding a feature"):

- flow_early   a flow's parent claimed before the last of its children
               ended (its `completed` or `dead` entry), in the order of the
               event stream as the collector copied it, outside a loss window

A parent completed twice is `twice` (check.py, every job); a parent that
never ends is `lost` once the producers record the flow's parent as an
acknowledged enqueue (an `enq` line with the parent's id) beside the
`flow` line.

The `flow` line a producer writes (one a call): `parent` (its id), `children`
(their ids), `rc`, `t0`, `t1`. What a parent does when a child dies depends
on the flow's failure policy (fail the parent, ignore, run with the failure
recorded); the rule takes a child's `dead` as its end either way, and a
parent dead-lettered for its child is not a claim.
"""

from __future__ import annotations

from typing import Dict, List

from run_model import Run, Violation

ENDS = ("completed", "dead")


def rule_flows(run: Run, out: List[Violation], figures: Dict[str, int]) -> None:
    flows = [e for e in run.events if e.get("ev") == "flow" and e.get("rc") == 0]
    if not flows:
        return
    pos = {id(e): i for i, e in enumerate(run.events)}
    srv = {jid: [e for part in parts for e in part] for jid, parts in run.srv.items()}
    for f in flows:
        figures["flows"] = figures.get("flows", 0) + 1
        parent = int(f["parent"])
        claims = [e for e in srv.get(parent, []) if e.get("type") == "claimed"]
        if not claims:
            continue
        first = min(claims, key=lambda e: pos[id(e)])
        for c in f.get("children", []):
            ends = [e for e in srv.get(int(c), []) if e.get("type") in ENDS]
            last_end = max((pos[id(e)] for e in ends), default=None)
            if (last_end is None or last_end > pos[id(first)]) and not run.window_between(f["t0"], first["t1"]):
                out.append(Violation("flow_early", parent, f"parent {parent} claimed at {first['t1']:.0f} before "
                                                           f"its child {c} ended"))
                break


FLOW_RULES = [rule_flows]
