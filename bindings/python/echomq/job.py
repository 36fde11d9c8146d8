"""A claimed job: its data and the calls that settle it."""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, List, Optional, Tuple

from . import _convert, _echomq
from .errors import InvalidArgument

if TYPE_CHECKING:  # pragma: no cover
    from .flows import FlowInfo
    from .queue import Queue

RawJob = Tuple[int, str, bytes, int, int, int, int, int, str, int, int, int, int, int, bytes, bytes]

_STATES = {1: "pending", 2: "leased", 3: "delayed", 4: "dead", 5: "completed", 6: "waiting"}


class FailOutcome(enum.IntEnum):
    """What :meth:`Job.fail` did with the job."""

    RETRY = 1
    """Back in its lane, at its original mint position."""
    DELAYED = 2
    """Waiting in the delayed set for its retry time."""
    DEAD = 3
    """Out of attempts: dead-lettered."""


class Job:
    """One delivery of a job, as returned by ``Queue.claim`` and friends.

    A job is settled through the queue (and so the client) that claimed it:
    :meth:`ack`, :meth:`fail` or :meth:`extend`.  ``token`` is the fencing
    token of this delivery (new for every delivery, also across a failover);
    a holder whose lease ran out gets :class:`~echomq.StaleLeaseError` and
    changes nothing.

    Attributes:
        id: the job id (ids grow in mint order).
        group: the lane the job belongs to.
        payload: the payload bytes (``text`` decodes them as UTF-8).
        token: the fencing token of this delivery (an int below 2**53,
            unrelated to the attempt number); for a dead job, the attempts
            it used.
        attempt: the attempt number of this delivery (1 for the first);
            for a dead job, the attempts it used.
        max_attempts: deliveries allowed before dead-lettering.
        lease_until: lease deadline, server clock, seconds since the epoch
            (``None`` if not leased).
        enqueued_at: enqueue time, server clock, seconds since the epoch.
        dead_at: time of death for a dead-lettered job, else ``None``.
        last_error: the last failure reason ("" if none): on a claimed job,
            why its previous attempt failed.
        attempt: which attempt of its current budget this delivery is,
            1..``max_attempts`` (a dead job: the attempts of its last
            budget). It equals ``token`` unless the job was redriven (a fresh
            budget) or given back unstarted by a stopping worker (not an
            attempt); the token keeps counting across both.
        state: ``"pending"``, ``"waiting"`` (a flow's parent waiting for
            its children), ``"leased"``, ``"delayed"``, ``"dead"`` or
            ``"completed"`` (a retained outcome: ``Queue.retain``).
        due_at: when a delayed job falls due (server clock), else ``None``.
        started_at: its first delivery (server clock; lookups only), else
            ``None``.
        finished_at: when it completed or died (lookups only), else ``None``.
        progress: the last progress it reported (bytes, ``b""`` if none).
        result: a retained completed job's result (bytes, ``b""`` if none);
            a completed job keeps no payload.
    """

    __slots__ = (
        "_queue",
        "id",
        "group",
        "payload",
        "token",
        "attempt",
        "max_attempts",
        "lease_until",
        "enqueued_at",
        "dead_at",
        "last_error",
        "attempt",
        "state",
        "due_at",
        "started_at",
        "finished_at",
        "progress",
        "result",
        "_cost",
    )

    def __init__(
        self,
        queue: "Queue",
        id: int,
        group: str,
        payload: bytes,
        token: int,
        max_attempts: int,
        lease_until: Optional[float],
        enqueued_at: float,
        dead_at: Optional[float] = None,
        last_error: str = "",
        attempt: Optional[int] = None,
        state: str = "leased",
        due_at: Optional[float] = None,
        started_at: Optional[float] = None,
        finished_at: Optional[float] = None,
        progress: bytes = b"",
        result: bytes = b"",
    ) -> None:
        self._queue = queue
        self.id = id
        self.group = group
        self.payload = payload
        self.token = token
        self.attempt = attempt
        self.max_attempts = max_attempts
        self.lease_until = lease_until
        self.enqueued_at = enqueued_at
        self.dead_at = dead_at
        self.last_error = last_error
        self.attempt = token if attempt is None else attempt
        self.state = state
        self.due_at = due_at
        self.started_at = started_at
        self.finished_at = finished_at
        self.progress = progress
        self.result = result
        self._cost = 0

    @classmethod
    def _from_raw(cls, queue: "Queue", raw: RawJob) -> "Job":
        (jid, group, payload, token, max_att, lease_ms, enq_ms, dead_ms, err, attempt, state, due_ms,
         started_ms, finished_ms, progress, result) = raw
        return cls(
            queue,
            jid,
            group,
            payload,
            token,
            max_att,
            lease_ms / 1000.0 if lease_ms else None,
            enq_ms / 1000.0,
            dead_ms / 1000.0 if dead_ms else None,
            err,
            attempt,
            _STATES.get(state, "leased"),
            due_ms / 1000.0 if due_ms else None,
            started_ms / 1000.0 if started_ms else None,
            finished_ms / 1000.0 if finished_ms else None,
            progress,
            result,
        )

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

    def extend(self, seconds: _convert.Seconds) -> float:
        """Extend the lease to server now + ``seconds``.

        Returns the new deadline (server clock, seconds since the epoch) and
        stores it in ``lease_until``.

        Raises:
            StaleLeaseError: the lease was already lost.
        """
        q = self._queue
        until_ms = q._client._raw.extend(q.name, self.id, self.token, _convert.to_ms("seconds", seconds))
        self.lease_until = until_ms / 1000.0
        return self.lease_until

    def __repr__(self) -> str:
        return (
            f"Job(id={self.id}, group={self.group!r}, token={self.token}, "
            f"payload={self.payload[:32]!r}{'...' if len(self.payload) > 32 else ''})"
        )

