"""Flows: jobs that wait for other jobs of the same queue (docs/operations.md
"Flows"), and Celery's canvas on top of them.

A flow is a forest of jobs named by the caller. A job with children (a
parent) waits until every child has finished, then joins its lane and takes
its turn like any job. It reads its children's outcomes (their results) with
:meth:`echomq.Job.flow` or :meth:`echomq.Job.child_results`; they are kept
for it whatever the queue's retention says, and freed when it settles.

Celery's names:

- :class:`chain` ``(a, b, c)``: a, then b, then c; each sees the one
  before's result (``job.child_results()[0]``).
- :class:`group` ``(a, b, c)``: all in parallel; :meth:`GroupResult.wait`
  waits for all of them.
- :class:`chord` ``(group(a, b), callback)``: the group, then the callback
  with every result (``job.child_results()``).

Each is enqueued whole in one call, all or nothing:
``queue.enqueue_flow(chain(...))`` (or ``await aqueue.enqueue_flow(...)``).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Union

from . import _convert
from . import _echomq
from .job import _STATES

if TYPE_CHECKING:  # pragma: no cover
    from .job import Job
    from .queue import Queue

__all__ = ["Step", "step", "Flow", "FlowResult", "FlowInfo", "FlowChild", "chain", "group", "chord", "GroupResult"]

# What a parent does when a child dies (echomq/flows.h echomq_flow_on_fail).
ON_FAIL = {"fail": 0, "ignore": 1, "continue": 2}
_ON_FAIL_NAME = {v: k for k, v in ON_FAIL.items()}


@dataclasses.dataclass(frozen=True)
class Step:
    """One job of a flow not yet named: its lane and payload, what its parent
    does if it dies (``on_fail``: ``"fail"``, ``"ignore"`` or
    ``"continue"``) and its queue (``None`` = the flow's; any other is
    refused: a flow lives in one queue)."""

    lane: str
    payload: _convert.Payload = b""
    on_fail: str = "fail"
    queue: Optional[str] = None


def step(lane: str, payload: _convert.Payload = b"", *, on_fail: str = "fail", queue: Optional[str] = None) -> Step:
    """A :class:`Step` (Celery's signature)."""
    return Step(lane, payload, on_fail, queue)


class Flow:
    """A flow being built: jobs named by you, each with the name of the job
    that waits for it (its parent). Enqueue it with
    :meth:`echomq.Queue.enqueue_flow`."""

    def __init__(self) -> None:
        self._rows: List[tuple] = []
        self._names: set = set()

    def add(
        self,
        name: str,
        lane: str,
        payload: _convert.Payload = b"",
        *,
        parent: Optional[str] = None,
        on_fail: str = "fail",
        queue: Optional[str] = None,
    ) -> str:
        """Adds job ``name`` (unique in the flow); ``parent`` names the job
        that waits for it (added before or after). Returns ``name``."""
        if on_fail not in ON_FAIL:
            raise ValueError(f"on_fail must be one of {sorted(ON_FAIL)}, not {on_fail!r}")
        if name in self._names:
            raise ValueError(f"flow names job {name!r} twice")
        self._names.add(name)
        self._rows.append(
            (name, parent or "", ON_FAIL[on_fail], queue or "", lane, _convert.payload_bytes(payload))
        )
        return name

    def add_step(self, name: str, s: Step, parent: Optional[str] = None) -> str:
        return self.add(name, s.lane, s.payload, parent=parent, on_fail=s.on_fail, queue=s.queue)

    def __len__(self) -> int:
        return len(self._rows)

    def flow(self) -> "Flow":
        return self

    def _result(self, ids: Dict[str, int]) -> "FlowResult":
        return FlowResult(ids)


class FlowResult(Dict[str, int]):
    """The ids of an enqueued flow by name; ``root`` is the job whose result
    is the flow's (a chain's last step, a chord's callback; None for a
    plain flow or a group)."""

    root: Optional[int] = None


@dataclasses.dataclass(frozen=True)
class FlowChild:
    """A child as its parent sees it: ``state`` ("pending", "leased",
    "delayed", "waiting", "dead" or "completed"), attempts, when it finished
    (server ms, 0 = not yet), its last error and its result (bytes)."""

    id: int
    state: str
    attempts: int
    finished_at_ms: int
    error: str
    result: bytes


@dataclasses.dataclass(frozen=True)
class FlowInfo:
    """A job's links: its state, the parent that waits for it (None), what
    that parent does if it dies, its children not finished yet and every
    child listed (in id order)."""

    state: str
    parent: Optional[int]
    on_fail: str
    waiting: int
    children: List[FlowChild]

    @property
    def results(self) -> List[bytes]:
        """The results of the completed children, in id order."""
        return [c.result for c in self.children if c.state == "completed"]


def enqueue_flow(queue: "Queue", flow: Any, *, max_attempts: Optional[int] = None) -> FlowResult:
    f = flow.flow()
    ids = _echomq.flow_enqueue(queue.client._raw, queue.name, f._rows, max_attempts or 0)
    return flow._result({row[0]: jid for row, jid in zip(f._rows, ids)})


def flow_info(queue: "Queue", job_id: int) -> FlowInfo:
    state, parent, on_fail, waiting, kids = _echomq.flow_info(queue.client._raw, queue.name, job_id)
    children = sorted(
        (FlowChild(i, _STATES.get(s, "unknown"), a, f, e.decode("utf-8", "replace"), r) for i, s, a, f, e, r in kids),
        key=lambda c: c.id,
    )
    return FlowInfo(_STATES.get(state, "unknown"), parent or None, _ON_FAIL_NAME.get(on_fail, "fail"), waiting, children)


def delete_flow(queue: "Queue", job_id: int) -> int:
    return int(_echomq.flow_delete(queue.client._raw, queue.name, job_id))


# -- Celery's canvas ---------------------------------------------------------

Steps = Union[Step, "group"]


class chain:
    """a, then b, then c: each step waits for the one before (its only
    child) and reads its result with ``job.child_results()[0]``. If a step
    dies, the steps after it die too (``on_fail="fail"``, the default)."""

    def __init__(self, *steps: Step) -> None:
        if not steps:
            raise ValueError("a chain needs at least one step")
        self.steps = list(steps)

    def flow(self) -> Flow:
        f = Flow()
        for i, s in enumerate(self.steps):
            nxt = f"step{i + 1}" if i + 1 < len(self.steps) else None
            f.add_step(f"step{i}", s, parent=nxt)
        return f

    def _result(self, ids: Dict[str, int]) -> FlowResult:
        r = FlowResult(ids)
        r.root = ids[f"step{len(self.steps) - 1}"]
        return r


class GroupResult(FlowResult):
    """The ids of a group's jobs (in order: ``ids``); :meth:`wait` waits for
    all of them. A job that completed before the wait began is found only
    while its outcome is kept: give the queue a retention
    (:meth:`echomq.Queue.retain`) to wait for a group's results."""

    def __init__(self, ids: Dict[str, int]) -> None:
        super().__init__(ids)
        self.ids = list(ids.values())

    def wait(self, queue: "Queue", timeout: Optional[_convert.Seconds] = None) -> List["Job"]:
        """Waits for every job of the group; their finished jobs in order
        (``state`` "completed" with its ``result``, or "dead")."""
        return [queue.wait(i, timeout) for i in self.ids]


class group:
    """Jobs that run in parallel, each in its lane. Alone, a group is
    :class:`GroupResult`'s jobs to wait for; in a :class:`chord` the
    callback waits for them on the server."""

    def __init__(self, *steps: Step) -> None:
        if not steps:
            raise ValueError("a group needs at least one step")
        self.steps = list(steps)

    def flow(self) -> Flow:
        f = Flow()
        for i, s in enumerate(self.steps):
            f.add_step(f"job{i}", s)
        return f

    def _result(self, ids: Dict[str, int]) -> GroupResult:
        return GroupResult(ids)


class chord:
    """A group, then ``body``, which runs once after every job of the group
    finished and reads all their results (``job.child_results()``, in the
    group's order)."""

    def __init__(self, header: Union[group, Sequence[Step]], body: Step) -> None:
        self.header = header if isinstance(header, group) else group(*header)
        self.body = body

    def flow(self) -> Flow:
        f = Flow()
        f.add_step("body", self.body)
        for i, s in enumerate(self.header.steps):
            f.add_step(f"job{i}", s, parent="body")
        return f

    def _result(self, ids: Dict[str, int]) -> FlowResult:
        r = FlowResult(ids)
        r.root = ids["body"]
        return r
