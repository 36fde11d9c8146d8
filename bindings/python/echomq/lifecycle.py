"""A job's life past claim and settle (echomq/lifecycle.h): cancel, time
limits, start deadlines, the queue-wide ceiling and rate, and lane limits
that burst.

The calls are methods of :class:`echomq.Queue` (and, awaited, of
:class:`echomq.aio.AsyncQueue`); a job's own time limit and start deadline
are options of :meth:`echomq.Queue.enqueue`.  A handler run by a worker
learns that its job was canceled or ran out of time through
:attr:`echomq.Job.cancelled` (a ``threading.Event``) and
:meth:`echomq.Job.raise_if_cancelled`; an asyncio handler's task is
cancelled.  Python threads cannot be stopped from outside: a handler that
never looks keeps running, but its report no longer counts (a canceled job
settles as canceled, a timed-out attempt fails "timed out"), and a handler
that never returns loses its job to a new delivery once the lease lapses.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, Optional

from . import _convert, _echomq
from .errors import InvalidArgument

if TYPE_CHECKING:  # pragma: no cover
    from .client import Client

__all__ = ["JobHalted", "LifecycleSettings", "STATES"]

STATES = _echomq.JOB_STATES
"""echomq_job_state numbers to names (the module's one table), as
:meth:`Queue.cancel` returns them."""

_HALTS = {_echomq.HALT_CANCELED: "canceled", _echomq.HALT_TIMED_OUT: "timed out"}


class JobHalted(Exception):
    """Raised by :meth:`echomq.Job.raise_if_cancelled` in a handler whose
    job was canceled or ran out of its time limit.  Let it propagate: the
    engine settles the job as it should whatever the handler reports."""

    def __init__(self, job_id: int, why: str) -> None:
        super().__init__(f"job {job_id} {why}")
        self.job_id = job_id
        self.why = why


def halt_name(code: int) -> Optional[str]:
    """``"canceled"``, ``"timed out"`` or None (runs on) for an
    ECHOMQ_HALT_* code."""
    return _HALTS.get(code)


@dataclass(frozen=True)
class LifecycleSettings:
    """A queue's lifecycle settings and where it stands.

    Attributes:
        default_timeout: the default time limit of an attempt, seconds (None
            = none).
        queue_limit: jobs leased at once across all lanes (None = no ceiling).
        rate_jobs, rate_period, rate_burst: the queue-wide rate (None = none;
            the period in seconds).
        leased: jobs leased now (what the ceiling counts).
        tokens: the rate's tokens now (None without a rate).
        next_token_at: when the next token is due, server clock, seconds
            since the epoch (None when one is there now).
    """

    default_timeout: Optional[float]
    queue_limit: Optional[int]
    rate_jobs: Optional[int]
    rate_period: Optional[float]
    rate_burst: Optional[int]
    leased: int
    tokens: Optional[float]
    next_token_at: Optional[float]

    @classmethod
    def _from_dict(cls, d: Dict[str, object]) -> "LifecycleSettings":
        def none0(v: object) -> Optional[int]:
            return None if not v else int(v)  # type: ignore[call-overload]

        rated = bool(d["rate_jobs"])
        return cls(
            default_timeout=d["default_timeout_ms"] / 1000.0 if d["default_timeout_ms"] else None,  # type: ignore
            queue_limit=none0(d["queue_limit"]),
            rate_jobs=none0(d["rate_jobs"]),
            rate_period=d["rate_period_ms"] / 1000.0 if rated else None,  # type: ignore[operator]
            rate_burst=none0(d["rate_burst"]) if rated else None,
            leased=int(d["leased"]),  # type: ignore[call-overload]
            tokens=float(d["tokens"]) if d["tokens"] >= 0 else None,  # type: ignore[operator,arg-type]
            next_token_at=d["next_token_at_ms"] / 1000.0 if d["next_token_at_ms"] else None,  # type: ignore
        )


def job_limits(
    timeout: Optional[_convert.Seconds],
    ttl: Optional[_convert.Seconds],
    expires_at: Optional[datetime.datetime],
    expire_drop: bool,
) -> Dict[str, int]:
    """The enqueue options of a job's time limit and start deadline, checked,
    by their C names (echomq_enqueue_options version 6)."""
    o: Dict[str, int] = {}
    if timeout is not None:
        o["timeout_ms"] = _convert.to_ms("timeout", timeout, maximum=_echomq.TIMEOUT_MAX_MS)
    if ttl is not None and expires_at is not None:
        raise _invalid("give ttl or expires_at, not both")
    if ttl is not None:
        o["ttl_ms"] = _convert.to_ms("ttl", ttl, maximum=_echomq.TTL_MAX_MS)
    if expires_at is not None:
        o["expires_at_ms"] = _convert.epoch_ms("expires_at", expires_at)
    if expire_drop:
        if ttl is None and expires_at is None:
            raise _invalid("expire_drop needs a start deadline (ttl or expires_at)")
        o["expire_flags"] = _echomq.EXPIRE_DROP
    return o


def _invalid(msg: str) -> Exception:
    return InvalidArgument(msg)


class LifecycleCalls:
    """The lifecycle's calls of :class:`echomq.Queue` (a base class of it)."""

    __slots__ = ()
    _client: "Client"
    _name: str

    def cancel(self, job_id: int, reason: Optional[str] = None, *, remove: bool = False) -> str:
        """Cancel job ``job_id``: it never runs again.

        A pending or delayed job goes to the dead letters at once with last
        error ``"canceled"`` (``"canceled: <reason>"``), or is removed whole
        with ``remove=True``.  A leased job is marked: it settles as canceled
        at its holder's next report, whatever that says, or when its lease
        runs out; a worker's handler is told at once (:attr:`Job.cancelled`).

        A flow's parent waiting for its children (``"waiting"``) is
        canceled with every job below it that has not run, in one call:
        waiting ones now, running ones marked, finished ones left as they
        are.  A flow's job canceled is, to its own parent, a death with
        reason ``"canceled"``: the link's ``on_fail`` applies.

        Returns the state the job had: ``"pending"``, ``"delayed"``,
        ``"waiting"`` (a flow's parent, canceled with its subtree),
        ``"leased"`` (marked) or ``"dead"`` (canceled before: nothing
        changed).

        Raises:
            NotFoundError: no such job was ever enqueued.
            FinishedError: the job has finished (completed, or dead for
                another reason): nothing to cancel.
        """
        jid = _convert.to_id("job_id", job_id)
        why = b"" if reason is None else _convert.reason_bytes(reason)
        flags = _echomq.CANCEL_REMOVE if remove else 0
        return STATES[self._client._raw.cancel(self._name, jid, why, flags)]

    def limit_burst(self, group: str, limit: int, burst: Optional[int]) -> None:
        """Set lane (or tenant ``"T/"``) ``group``'s own limit and its burst
        ceiling together: at or above ``limit`` jobs leased, below ``burst``,
        the lane is served only when no lane below its own limit is
        serviceable.  ``burst=None`` keeps the limit and drops the burst;
        :meth:`limit` with ``None`` clears both."""
        g = _convert.group_name(group)
        n = _convert.to_count("limit", limit, maximum=_echomq.LIMIT_MAX)
        b = 0 if burst is None else _convert.to_count("burst", burst, minimum=n, maximum=_echomq.LIMIT_MAX)
        self._client._raw.set_limit_burst(self._name, g, n, b)

    def default_timeout(self, seconds: Optional[_convert.Seconds]) -> None:
        """The queue's default time limit of an attempt, for jobs enqueued
        without their own (``None`` clears it)."""
        ms = 0 if seconds is None else _convert.to_ms("timeout", seconds, maximum=_echomq.TIMEOUT_MAX_MS)
        self._client._raw.set_default_timeout(self._name, ms)

    def queue_limit(self, n: Optional[int]) -> None:
        """At most ``n`` jobs leased at once across all lanes (``None``
        clears the ceiling).  Lane and tenant limits hold within it."""
        v = 0 if n is None else _convert.to_count("queue limit", n, maximum=_echomq.LIMIT_MAX)
        self._client._raw.set_queue_limit(self._name, v)

    def queue_rate(self, jobs: Optional[int], per: _convert.Seconds = 1.0, *, burst: Optional[int] = None) -> None:
        """At most ``jobs`` job starts per ``per`` seconds across all lanes,
        in bursts of up to ``burst`` (default ``jobs``); ``jobs=None`` clears
        it."""
        if jobs is None:
            self._client._raw.set_queue_rate(self._name, 0, 1000, 0)
            return
        n = _convert.to_count("jobs", jobs, maximum=_echomq.RATE_JOBS_MAX)
        period = _convert.to_ms("per", per, maximum=_echomq.RATE_PERIOD_MAX_MS)
        b = 0 if burst is None else _convert.to_count("burst", burst, maximum=_echomq.RATE_JOBS_MAX)
        self._client._raw.set_queue_rate(self._name, n, period, b)

    def lifecycle(self) -> LifecycleSettings:
        """The queue's lifecycle settings and where it stands."""
        return LifecycleSettings._from_dict(self._client._raw.get_lifecycle(self._name))
