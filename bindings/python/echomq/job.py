"""A claimed job: its data and the calls that settle it."""

from __future__ import annotations

import enum
import threading
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple

from . import _convert, _echomq
from .errors import InvalidArgument, error_class
from .lifecycle import JobHalted, halt_name

if TYPE_CHECKING:  # pragma: no cover
    from .flows import FlowInfo
    from .queue import Queue

_FIELDS: Tuple[str, ...] = _echomq.JOB_FIELDS
"""A job's fields, in the order of the compiled module's job tuples: the one
list (bindings/python/src/convert.cpp)."""

_STATES: Dict[int, str] = _echomq.JOB_STATES
"""Each job state's number (ECHOMQ_JOB_*) to its name: the one table
(bindings/python/src/convert.cpp)."""


class FailOutcome(enum.IntEnum):
    """What :meth:`Job.fail` did with the job."""

    RETRY = 1
    """Back in its lane, at its original mint position."""
    DELAYED = 2
    """Waiting in the delayed set for its retry time."""
    DEAD = 3
    """Out of attempts: dead-lettered."""


class Job:
    """One job: a delivery (``Queue.claim`` and friends) or a lookup
    (``Queue.job``, ``Queue.wait``, ``Queue.dead``).

    A delivery is settled through the queue (and so the client) that
    claimed it: :meth:`ack`, :meth:`fail` or :meth:`extend`.  A holder whose
    lease ran out gets :class:`~echomq.StaleLeaseError` and changes nothing.

    Attributes:
        id: the job id (ids grow in mint order).
        group: the lane the job belongs to.
        payload: the payload bytes (``text`` decodes them as UTF-8; a
            completed job keeps none: ``b""``).
        token: the fencing token of this delivery, or for a job looked up,
            of its latest delivery (0 if it was never delivered): an int
            below 2**53, greater for every later delivery of the job (also
            across a failover), unrelated to the attempt number.
        attempt: which attempt of its attempt budget this delivery is,
            1..``max_attempts`` (a job looked up: of its latest delivery, 0
            before the first; a dead job: the attempts of its last budget).
            A redrive gives a fresh budget, and a job given back unstarted
            by a stopping worker used none.
        max_attempts: its attempt budget: deliveries allowed before it is
            dead-lettered.
        state: ``"pending"``, ``"waiting"`` (a flow's parent waiting for
            its children), ``"leased"``, ``"delayed"``, ``"dead"`` or
            ``"completed"`` (a retained outcome: ``Queue.retain``).
        lease_until: lease deadline, server clock, seconds since the epoch
            (``None`` if not leased).
        enqueued_at: enqueue time, server clock, seconds since the epoch.
        due_at: when a delayed job falls due (server clock), else ``None``.
        dead_at: time of death for a dead-lettered job, else ``None``.
        started_at: its first delivery (server clock; lookups only), else
            ``None``.
        finished_at: when it completed or died (lookups only), else ``None``.
        last_error: the last failure reason ("" if none): on a claimed job,
            why its previous attempt failed.
        progress: the last progress it reported (bytes, ``b""`` if none).
        result: a retained completed job's result (bytes, ``b""`` if none).
        result_dropped: why a completed job keeps no result ("" when it
            kept one, or had none): the Worker could not encode what the
            handler returned, or it was over ``echomq.RESULT_MAX``.  The job
            completed all the same.
        name: the name (kind) it was enqueued with ("" if none); a tasks
            ``App`` dispatches on it.
        headers: its headers as enqueued (a dict of str, empty if none).
            A completed job's outcome keeps neither.
    """

    # Typed once more for checkers; the import checks these names against
    # the one list (_FIELDS), so the two cannot drift apart.
    id: int
    group: str
    payload: bytes
    token: int
    attempt: int
    max_attempts: int
    state: str
    lease_until: Optional[float]
    enqueued_at: float
    due_at: Optional[float]
    dead_at: Optional[float]
    started_at: Optional[float]
    finished_at: Optional[float]
    last_error: str
    progress: bytes
    result: bytes
    result_dropped: str
    name: str
    headers: Dict[str, str]

    __slots__ = ("_queue", "_cost", "_halt", "_halt_why") + _FIELDS

    def __init__(self, queue: "Queue", **fields: Any) -> None:
        """A job of ``queue`` with the given fields (by name, all of them);
        jobs normally come from the queue's calls."""
        missing = set(_FIELDS) - set(fields)
        unknown = set(fields) - set(_FIELDS)
        if missing or unknown:
            raise TypeError(f"Job fields: missing {sorted(missing)}, unknown {sorted(unknown)}")
        _fill(self, queue, tuple(fields[name] for name in _FIELDS))

    @classmethod
    def _from_raw(cls, queue: "Queue", raw: Tuple[Any, ...]) -> "Job":
        job = cls.__new__(cls)
        _fill(job, queue, raw)
        return job

    def report_cost(self, units: int) -> None:
        """Say what this job's work cost, in units of your own (tokens,
        bytes, calls), from a :class:`~echomq.Worker` handler: in a queue's
        cost mode its lane is charged that instead of the handler time the
        engine measures (microseconds).  The last call counts; 0 goes back to
        the measured time.  A job claimed by hand is charged with
        :meth:`Queue.charge`."""
        if isinstance(units, bool) or not isinstance(units, int) or units < 0 or units > _echomq.ID_MAX:
            raise InvalidArgument(f"cost must be an int 0..{_echomq.ID_MAX}")
        self._cost = units

    @property
    def cancelled(self) -> threading.Event:
        """Set when a :class:`~echomq.Worker` tells this job's handler to
        stop: the job was canceled (:meth:`Queue.cancel`) or its attempt ran
        out of its time limit (:attr:`halt_reason` says which).  Wait on it,
        or check it between steps; a thread cannot be stopped from outside.
        Never set for a job claimed by hand."""
        if self._halt is None:
            self._halt = threading.Event()
        return self._halt

    @property
    def halt_reason(self) -> Optional[str]:
        """``"canceled"``, ``"timed out"``, or None while the job may run on."""
        return halt_name(self._halt_why)

    def raise_if_cancelled(self) -> None:
        """Raise :class:`~echomq.JobHalted` once :attr:`cancelled` is set:
        the cooperating handler's one line between steps.  The engine then
        settles the job as canceled, or fails the attempt "timed out"."""
        if self._halt_why:
            raise JobHalted(self.id, halt_name(self._halt_why) or "halted")

    def _halted(self, why: int) -> None:
        """The engine's word (a worker's halt thread)."""
        self._halt_why = why
        self.cancelled.set()

    @property
    def queue(self) -> "Queue":
        """The queue this job was claimed from."""
        return self._queue

    @property
    def text(self) -> str:
        """The payload decoded as UTF-8."""
        return self.payload.decode("utf-8")

    def ack(self) -> None:
        """Acknowledge the job: it is done and deleted.

        Raises:
            StaleLeaseError: the lease was lost (another delivery may own it).
            NotFoundError: the job no longer exists.
        """
        q = self._queue
        q._client._raw.ack(q.name, self.id, self.token)

    def ack_result(self, result: _convert.Payload) -> None:
        """Acknowledge the job with a result (bytes, or str sent as UTF-8, at
        most ``echomq.RESULT_MAX`` bytes).  When the job's outcome is retained
        (``Queue.retain``, ``keep=`` at enqueue, or someone waits for it) the
        result is kept with it; otherwise it is dropped.

        Raises:
            TooLargeError: over the limit (nothing was sent).
            StaleLeaseError, NotFoundError: as :meth:`ack`.
        """
        q = self._queue
        q._client._raw.ack_result(q.name, self.id, self.token, _convert.payload_bytes(result))

    def flow(self) -> "FlowInfo":
        """This job's links in its flow: its parent and its children with
        their outcomes (a parent runs after all of them finished)."""
        return self._queue.flow_info(self.id)

    def child_results(self) -> List[bytes]:
        """The results of this job's completed children, in id order (the
        order they were added to the flow): a chain step's one input, a
        chord callback's every result."""
        return self.flow().results

    def report_progress(self, value: _convert.Payload) -> None:
        """Report this job's progress (bytes, or str sent as UTF-8, at most
        ``echomq.PROGRESS_MAX`` bytes), fenced by the token like
        :meth:`extend`.  Shown by ``Queue.job`` and as a ``progress`` event.

        Raises:
            TooLargeError: over the limit (nothing was sent).
            StaleLeaseError: the lease was lost; nothing changed.
        """
        q = self._queue
        q._client._raw.progress(q.name, self.id, self.token, _convert.payload_bytes(value))

    def ack_and_claim(self, lease: Optional[_convert.Seconds] = None) -> Optional["Job"]:
        """Acknowledge this job and claim the next one in one round trip.

        Returns the next job (claimed exactly as ``Queue.claim`` would), or
        ``None`` when the queue has nothing ready; the ack happened either way.
        ``lease`` defaults to the queue's lease.

        Raises:
            StaleLeaseError, NotFoundError: the ack was refused and nothing
                was claimed.
        """
        q = self._queue
        ms = q._lease_ms(lease)
        raw = q._client._raw.ack_claim(q.name, self.id, self.token, ms)
        return None if raw is None else Job._from_raw(q, raw)

    def fail(self, reason: object = "", retry_in: Optional[_convert.Seconds] = None) -> FailOutcome:
        """Fail this attempt with a reason (text, or an exception).

        The job is retried until it has used ``max_attempts``, then
        dead-lettered.  ``retry_in``: ``None`` = exponential backoff
        (1 s, 2 s, 4 s, ... at most 1 h), ``0`` = straight back to its lane,
        or a delay in seconds.

        Returns:
            the :class:`FailOutcome`.

        Raises:
            StaleLeaseError: the lease was lost; nothing changed.
            NotFoundError: the job no longer exists.
        """
        q = self._queue
        delay = _echomq.RETRY_BACKOFF if retry_in is None else _convert.to_ms("retry_in", retry_in, minimum=0)
        outcome = q._client._raw.fail(q.name, self.id, self.token, _convert.reason_bytes(reason), delay)
        return FailOutcome(outcome)

    def release(self) -> None:
        """Give this job back to its lane unstarted, at its mint position:
        the attempt is not counted (a job claimed but not run).

        Raises:
            StaleLeaseError: the lease was lost; nothing changed.
            NotFoundError: the job no longer exists.
        """
        q = self._queue
        status = q._client._raw.release(q.name, self.id, self.token)
        if status < 0:
            raise error_class(status)(f"release of job {self.id}: {_echomq.strerror(status)}", status)

    def extend(self, seconds: Optional[_convert.Seconds] = None) -> float:
        """Extend the lease to server now + ``seconds`` (``None`` = the
        queue's lease, as a claim takes).

        Returns the new deadline (server clock, seconds since the epoch) and
        stores it in ``lease_until``.

        Raises:
            StaleLeaseError: the lease was already lost.
        """
        q = self._queue
        until_ms = q._client._raw.extend(q.name, self.id, self.token, q._lease_ms(seconds, "seconds"))
        self.lease_until = until_ms / 1000.0
        return self.lease_until

    def __repr__(self) -> str:
        return (
            f"Job(id={self.id}, group={self.group!r}, state={self.state!r}, attempt={self.attempt}/"
            f"{self.max_attempts}, token={self.token}, "
            f"payload={self.payload[:32]!r}{'...' if len(self.payload) > 32 else ''})"
        )


def _reader(fields: Tuple[str, ...]) -> Callable[[Job, "Queue", Tuple[Any, ...]], None]:
    """Generates the function that fills a Job from a job tuple: one
    unpacking assignment over the fields, in the one list's order (faster
    than a loop of setattr calls, and a tuple of another length fails)."""
    targets = "".join(f"job.{name}, " for name in fields)
    src = f"def fill(job, queue, raw):\n    job._queue = queue\n    job._cost = 0\n    job._halt = None\n    job._halt_why = 0\n    {targets}= raw\n"
    scope: dict = {}
    exec(compile(src, "<echomq.job reader>", "exec"), scope)  # noqa: S102 (generated from the names only)
    return scope["fill"]


if tuple(Job.__annotations__) != _FIELDS:  # the typed names must be the one list's, in its order
    raise ImportError(f"echomq.Job fields {tuple(Job.__annotations__)} differ from the module's {_FIELDS}")
_fill = _reader(_FIELDS)
