"""The dashboard's actions: checked in full before any I/O, applied through
the binding, and logged to stderr with what they changed."""

from __future__ import annotations

import json
import sys
from typing import Any, Callable, Dict, List, Optional, TextIO

from .. import _convert, _echomq
from ..errors import InvalidArgument
from ..queue import Queue

ACTIONS = ("pause", "resume", "weight", "limit", "rate", "cap", "redrive", "delete", "cancel")
REDRIVE_IDS_MAX = 10000


def _lane(body: Dict[str, Any]) -> str:
    lane = body.get("lane")
    if lane is None:
        raise InvalidArgument("lane is missing")
    _convert.group_name(lane)  # TypeError / InvalidArgument for a bad name
    return lane


def _optional_count(body: Dict[str, Any], name: str, field: str, maximum: int) -> Optional[int]:
    """``field`` of the body: a whole number, or null to clear the setting."""
    if field not in body:
        raise InvalidArgument(f"{field} is missing (a number, or null to clear the lane's own {name})")
    value = body[field]
    return None if value is None else _convert.to_count(name, value, maximum=maximum)


class Plan:
    """A checked action: ``run(queue)`` applies it and returns what changed."""

    def __init__(self, action: str, summary: str, run: Callable[[Queue], Dict[str, Any]]) -> None:
        self.action = action
        self.summary = summary
        self.run = run


def _lane_view(q: Queue, lane: str) -> Dict[str, Any]:
    info = q.lane(lane)
    return {"paused": info.paused, "weight": info.weight, "limit": info.limit,
            "rate": None if info.rate is None else list(info.rate), "cap": info.cap}


def _lane_setting(action: str, lane: str, apply: Callable[[Queue], None], fields: List[str]) -> Callable[[Queue], Dict[str, Any]]:
    def run(q: Queue) -> Dict[str, Any]:
        before = _lane_view(q, lane)
        apply(q)
        after = _lane_view(q, lane)
        return {f: {"before": before[f], "after": after[f]} for f in fields}
    return run


def plan(action: str, body: Any) -> Plan:
    """Checks an action's body; raises InvalidArgument or TypeError (400),
    LookupError for an unknown action (404).  Sends nothing."""
    if action not in ACTIONS:
        raise LookupError(f"no such action {action!r}; actions: {', '.join(ACTIONS)}")
    if not isinstance(body, dict):
        raise InvalidArgument("the body must be a JSON object")
    if action in ("pause", "resume"):
        lane = _lane(body)
        fn = (lambda q: q.pause(lane)) if action == "pause" else (lambda q: q.resume(lane))
        return Plan(action, f"{action} lane {json.dumps(lane)}", _lane_setting(action, lane, fn, ["paused"]))
    if action in ("weight", "limit", "cap"):
        lane = _lane(body)
        maximum = {"weight": _echomq.WEIGHT_MAX, "limit": _echomq.LIMIT_MAX, "cap": _echomq.CAP_MAX}[action]
        value = _optional_count(body, action, "value", maximum)
        setter = {"weight": Queue.weight, "limit": Queue.limit, "cap": Queue.cap}[action]
        what = "clear" if value is None else f"set {value}"
        return Plan(action, f"{action} lane {json.dumps(lane)} {what}",
                    _lane_setting(action, lane, lambda q: setter(q, lane, value), [action]))
    if action == "rate":
        lane = _lane(body)
        jobs = _optional_count(body, "jobs", "jobs", _echomq.RATE_JOBS_MAX)
        per = body.get("per", 1.0)
        burst = body.get("burst")
        if jobs is not None:
            per_ms = _convert.to_ms("per", per)
            if per_ms > _echomq.RATE_PERIOD_MAX_MS:
                raise InvalidArgument(f"per must be at most {_echomq.RATE_PERIOD_MAX_MS // 1000} s")
            if burst is not None:
                _convert.to_count("burst", burst, maximum=_echomq.RATE_JOBS_MAX)
        what = "clear" if jobs is None else f"set {jobs} per {per} s" + ("" if burst is None else f" burst {burst}")
        return Plan(action, f"rate lane {json.dumps(lane)} {what}",
                    _lane_setting(action, lane, lambda q: q.rate(lane, jobs, per, burst=burst), ["rate"]))
    if action == "redrive":
        if body.get("all") is True:
            if "ids" in body:
                raise InvalidArgument("give ids or all, not both")

            def run_all(q: Queue) -> Dict[str, Any]:
                return {"redriven": q.redrive(None)}
            return Plan(action, "redrive every dead job", run_all)
        ids = body.get("ids")
        if not isinstance(ids, list) or not ids:
            raise InvalidArgument("ids must be a non-empty list of job ids (or all: true)")
        if len(ids) > REDRIVE_IDS_MAX:
            raise InvalidArgument(f"at most {REDRIVE_IDS_MAX} ids per call")
        checked = [_convert.to_count("job id", i, maximum=2**64 - 1) for i in ids]

        def run_ids(q: Queue) -> Dict[str, Any]:
            return {"redriven": q.redrive(checked), "ids": checked}
        return Plan(action, f"redrive jobs {checked}", run_ids)
    jid = _convert.to_count("job id", body.get("id"), maximum=2**64 - 1) if "id" in body else None
    if jid is None:
        raise InvalidArgument("id is missing")
    if action == "cancel":
        reason = body.get("reason")
        if reason is not None and not isinstance(reason, str):
            raise InvalidArgument("reason must be a string (or null)")
        remove = body.get("remove", False)
        if not isinstance(remove, bool):
            raise InvalidArgument("remove must be true or false")
        if reason is not None:
            _convert.reason_bytes(reason)

        def run_cancel(q: Queue) -> Dict[str, Any]:
            return {"canceled": jid, "was": q.cancel(jid, reason, remove=remove), "removed": remove}
        return Plan(action, f"cancel job {jid}" + (" (remove)" if remove else ""), run_cancel)
    # delete

    def run_delete(q: Queue) -> Dict[str, Any]:
        job = q.job(jid)
        q.delete(jid)  # NotFoundError / LeasedError when it cannot be deleted
        return {"deleted": jid, "state": None if job is None else job.state,
                "lane": None if job is None else job.group}
    return Plan(action, f"delete job {jid}", run_delete)


def log_action(queue: str, p: Plan, changed: Dict[str, Any], out: TextIO = sys.stderr) -> None:
    """One line per action on stderr: the queue, the action and what changed."""
    print(f"echomq-dashboard: action queue={queue} {p.summary}: {json.dumps(changed, sort_keys=True)}",
          file=out, flush=True)
