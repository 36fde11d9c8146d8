"""Periodic jobs: a queue's named schedules (``queue.schedules``).

A schedule ticks every N seconds or on a cron expression in a time zone;
each tick becomes one job on the schedule's lane.  There is no scheduler
process: the claims that workers make anyway fire the ticks that are due,
in the same script that moves the schedule on, so every tick makes one job
however many processes claim (docs/operations.md, "Periodic jobs").

Example::

    q = client.queue("reports")
    q.schedules.upsert("nightly", cron="0 3 * * *", zone="Europe/Paris",
                       lane="tenant-7", payload=b"build")   # idempotent: call it at boot
    q.schedules.next("nightly", 3)      # the next three ticks, as the server computes them

Times are the server's clock.  Every datetime given must carry a tzinfo (a
naive one is ambiguous: :class:`~echomq.errors.InvalidArgument`); every
datetime returned is in UTC.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator, List, Optional, Tuple

from . import _convert, _echomq
from .errors import InvalidArgument
from .job import _STATES

if TYPE_CHECKING:
    from .queue import Queue

__all__ = ["Schedule", "Schedules", "Upserted", "AsyncSchedules"]

_CHANGED = {0: "unchanged", 1: "created", 2: "updated"}
_MISSED = {"once": _echomq.MISSED_FIRE_ONCE, "skip": _echomq.MISSED_SKIP}
_OVERLAP = {"fire": _echomq.OVERLAP_FIRE, "skip": _echomq.OVERLAP_SKIP}



def _utc(ms: int) -> Optional[datetime.datetime]:
    """Server ms to an aware UTC datetime (``None`` for 0: none)."""
    if not ms:
        return None
    return datetime.datetime.fromtimestamp(ms / 1000.0, tz=datetime.timezone.utc)


@dataclass(frozen=True)
class Upserted:
    """What :meth:`Schedules.upsert` did: ``changed`` is ``"created"``,
    ``"updated"`` or ``"unchanged"`` (the same spec was there); ``next_at``
    the schedule's next tick (``None`` when paused and never armed)."""

    changed: str
    next_at: Optional[datetime.datetime]


@dataclass(frozen=True)
class Schedule:
    """A schedule as read: its spec, then its state.

    ``every`` is ``None`` for a cron schedule (``cron`` and ``zone`` are
    ``""`` for an every schedule).  ``ended`` is ``""`` while the schedule
    may fire, else why it ended (``"limit"``, ``"end"``).  ``last_tick`` is
    the latest tick handled (fired or skipped); ``fired_tick``, ``fired_at``
    and ``fired_job`` the latest tick that fired, when, and its job, whose
    place now is ``last_outcome`` (``"pending"``, ``"leased"``,
    ``"delayed"``, ``"dead"``, ``"completed"`` when retained, ``"gone"``
    once acked, or ``None`` before the first fire).
    """

    name: str
    every: Optional[datetime.timedelta]
    cron: str
    zone: str
    lane: str
    payload: bytes
    max_attempts: int
    keep: Optional[datetime.timedelta]
    keep_last: Optional[int]
    cost_estimate: Optional[int]
    start: Optional[datetime.datetime]
    end: Optional[datetime.datetime]
    limit: Optional[int]
    missed: str
    grace: datetime.timedelta
    overlap: str
    paused: bool
    ended: str
    next_at: Optional[datetime.datetime]
    last_tick: Optional[datetime.datetime]
    fired_tick: Optional[datetime.datetime]
    fired_at: Optional[datetime.datetime]
    fired_job: Optional[int]
    last_outcome: Optional[str]
    runs: int
    skips: int
    created_at: Optional[datetime.datetime]
    updated_at: Optional[datetime.datetime]

    @property
    def lateness(self) -> Optional[datetime.timedelta]:
        """How late the latest fired tick fired (``fired_at - fired_tick``)."""
        if self.fired_at is None or self.fired_tick is None:
            return None
        return self.fired_at - self.fired_tick

    @classmethod
    def _from_raw(cls, d: dict) -> "Schedule":
        ms = datetime.timedelta(milliseconds=1)
        return cls(
            name=d["name"],
            every=d["every_ms"] * ms if d["every_ms"] else None,
            cron=d["cron"],
            zone=d["zone"],
            lane=d["lane"],
            payload=d["payload"],
            max_attempts=d["max_attempts"],
            keep=d["keep_ms"] * ms if d["keep_ms"] else None,
            keep_last=d["keep_last"] or None,
            cost_estimate=d["cost_estimate"] or None,
            start=_utc(d["start_at_ms"]),
            end=_utc(d["end_at_ms"]),
            limit=d["limit"] or None,
            missed="skip" if d["missed"] == _echomq.MISSED_SKIP else "once",
            grace=d["grace_ms"] * ms,
            overlap="skip" if d["overlap"] == _echomq.OVERLAP_SKIP else "fire",
            paused=d["paused"],
            ended=d["ended"],
            next_at=_utc(d["next_at_ms"]),
            last_tick=_utc(d["last_tick_ms"]),
            fired_tick=_utc(d["fired_tick_ms"]),
            fired_at=_utc(d["fired_at_ms"]),
            fired_job=d["fired_job"] or None,
            last_outcome=_STATES.get(d["fired_state"], "gone") if d["fired_job"] else None,
            runs=d["runs"],
            skips=d["skips"],
            created_at=_utc(d["created_at_ms"]),
            updated_at=_utc(d["updated_at_ms"]),
        )


def _name(name: object) -> str:
    if not isinstance(name, str):
        raise TypeError(f"schedule name must be a str, not {type(name).__name__}")
    ok = 1 <= len(name) <= _echomq.SCHEDULE_NAME_MAX and all(
        c.isascii() and (c.isalnum() or c in "_.:-") for c in name
    )
    if not ok:
        raise InvalidArgument(
            f"invalid schedule name {name!r}: 1..{_echomq.SCHEDULE_NAME_MAX} bytes of [A-Za-z0-9_.:-]"
        )
    return name


def _text(what: str, value: Optional[str]) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, not {type(value).__name__}")
    if "\0" in value:
        raise InvalidArgument(f"{what} holds a NUL")
    return value


def _policy(what: str, value: str, table: dict) -> int:
    if value not in table:
        raise InvalidArgument(f"{what} must be one of {', '.join(repr(k) for k in table)}, not {value!r}")
    return table[value]


class Schedules:
    """The schedules of one queue (``queue.schedules``): each call is one
    round trip on the queue's client.  Every argument is checked before any
    network I/O; a refused call has sent nothing."""

    def __init__(self, queue: "Queue") -> None:
        self._queue = queue

    @property
    def _raw(self):  # the compiled client handle
        return self._queue.client._raw

    def upsert(
        self,
        name: str,
        *,
        lane: str,
        payload: _convert.Payload = b"",
        every: Optional[_convert.Seconds] = None,
        cron: Optional[str] = None,
        zone: Optional[str] = None,
        max_attempts: Optional[int] = None,
        keep: Optional[_convert.Seconds] = None,
        keep_last: Optional[int] = None,
        cost_estimate: Optional[int] = None,
        start: Optional[datetime.datetime] = None,
        end: Optional[datetime.datetime] = None,
        limit: Optional[int] = None,
        missed: str = "once",
        grace: Optional[_convert.Seconds] = None,
        overlap: str = "fire",
    ) -> Upserted:
        """Create schedule ``name`` or change it; idempotent.

        Exactly one of ``every`` (seconds, or a timedelta) and ``cron`` (5
        fields, or 6 with seconds first; ``@daily`` and the like) gives the
        timing; ``zone`` (with cron only) is ``"UTC"`` (the default), a fixed
        offset such as ``"+05:30"``, or an IANA name such as
        ``"Europe/Paris"``.  Each tick enqueues ``payload`` on ``lane``
        with ``max_attempts``, ``keep``/``keep_last`` and ``cost_estimate``
        as :meth:`Queue.enqueue` takes them.  ``start``/``end`` (aware
        datetimes) bound the ticks; ``limit`` ends it after so many fired
        ticks.  ``missed``: ``"once"`` fires the latest of the ticks due by
        the time a claim comes, however late; ``"skip"`` fires it only
        within ``grace`` (default 1 s).  ``overlap``: ``"skip"`` skips a
        tick while the previous tick's job waits or runs; ``"fire"`` fires
        anyway.

        The same spec again changes nothing (``changed == "unchanged"``), so
        every process may upsert its schedules at boot.  A new timing
        re-arms it from now; any other change keeps its next tick.

        Raises:
            InvalidArgument: a bad name, timing, zone (unknown, or with
                ``every``), lane or option; a cron expression's message
                names its bad field; a spec that never fires.
        """
        n = _name(name)
        if (every is None) == (cron is None):
            raise InvalidArgument("give exactly one of every and cron")
        every_ms = 0 if every is None else _convert.to_ms("every", every)
        if every_ms > _echomq.SCHEDULE_EVERY_MAX_MS:
            raise InvalidArgument(f"every is longer than {_echomq.SCHEDULE_EVERY_MAX_MS // 86400000} days")
        cron_text = _text("cron", cron)
        if cron is not None and not cron_text.strip():
            raise InvalidArgument("cron is empty")
        zone_text = _text("zone", zone)
        if zone is not None and cron is None:
            raise InvalidArgument("a zone goes with a cron schedule only")
        g = _convert.group_name(lane).decode("utf-8")
        p = _convert.payload_bytes(payload)
        attempts = 0 if max_attempts is None else _convert.to_count("max_attempts", max_attempts)
        keep_ms = 0 if keep is None else _convert.to_ms("keep", keep)
        last = 0 if keep_last is None else _convert.to_count("keep_last", keep_last)
        est = 0 if cost_estimate is None else _convert.to_count("cost_estimate", cost_estimate, maximum=_echomq.ID_MAX)
        start_ms = 0 if start is None else _convert.epoch_ms("start", start)
        end_ms = 0 if end is None else _convert.epoch_ms("end", end)
        if end_ms and end_ms <= start_ms:
            raise InvalidArgument("end is not after start")
        runs = 0 if limit is None else _convert.to_count("limit", limit, maximum=_echomq.ID_MAX)
        grace_ms = 0 if grace is None else _convert.to_ms("grace", grace)
        changed, nxt = _echomq.schedule_upsert(
            self._raw, self._queue.name, n, every_ms, cron_text, zone_text, g, p, attempts, keep_ms, last, est,
            start_ms, end_ms, runs, _policy("missed", missed, _MISSED), grace_ms,
            _policy("overlap", overlap, _OVERLAP),
        )
        return Upserted(_CHANGED[changed], _utc(nxt))

    def remove(self, name: str) -> None:
        """Remove schedule ``name`` (the jobs it made stay).
        Raises NotFoundError when there is none."""
        _echomq.schedule_remove(self._raw, self._queue.name, _name(name))

    def pause(self, name: str) -> None:
        """Pause schedule ``name``: no tick fires (none is counted skipped)."""
        _echomq.schedule_pause(self._raw, self._queue.name, _name(name))

    def resume(self, name: str) -> None:
        """Resume schedule ``name`` at its first tick after now."""
        _echomq.schedule_resume(self._raw, self._queue.name, _name(name))

    def get(self, name: str) -> Schedule:
        """Schedule ``name``. Raises NotFoundError when there is none."""
        return Schedule._from_raw(_echomq.schedule_get(self._raw, self._queue.name, _name(name)))

    def list(self, *, page: int = 1000) -> List[Schedule]:
        """Every schedule of the queue, by name (read ``page`` at a time)."""
        return list(self._iter(page))

    def __iter__(self) -> Iterator[Schedule]:
        return self._iter(1000)

    def _iter(self, page: int) -> Iterator[Schedule]:
        count = _convert.to_count("page", page, maximum=_echomq.SCHEDULE_LIST_MAX)
        after: Optional[str] = ""
        while after is not None:
            rows, after = _echomq.schedules_page(self._raw, self._queue.name, after, count)
            for d in rows:
                yield Schedule._from_raw(d)

    def next(self, name: str, n: int = 1) -> List[datetime.datetime]:
        """The next ``n`` ticks of schedule ``name`` as the server computes
        them (fewer past its end or limit; a paused one's from a resume now)."""
        count = _convert.to_count("n", n, maximum=_echomq.SCHEDULE_NEXT_MAX)
        return [_utc(t) for t in _echomq.schedule_next(self._raw, self._queue.name, _name(name), count)]

    def tick_of(self, job: int) -> Optional[Tuple[str, datetime.datetime]]:
        """The schedule and tick that made job ``job`` (looked up: the job
        must still exist), or ``None`` for a job no schedule made.  Its
        idempotency key is ``f"sched:{name}:{tick ms}"``."""
        if isinstance(job, bool) or not isinstance(job, int) or job < 1:
            raise InvalidArgument(f"job id must be an int >= 1, not {job!r}")
        name, tick = _echomq.job_tick(self._raw, self._queue.name, job)
        return (name, _utc(tick)) if name else None


async def _awaited(fn, *args, **kw):
    # echomq.aio runs the blocking call in a thread; imported here, late:
    # aio imports the queue module, which imports this one.
    from .aio import _call

    return await _call(fn, *args, **kw)


class AsyncSchedules:
    """:class:`Schedules` awaited (``async_queue.schedules``)."""

    def __init__(self, sync: Schedules) -> None:
        self._sync = sync

    async def upsert(self, name: str, **spec) -> Upserted:
        return await _awaited(self._sync.upsert, name, **spec)

    async def remove(self, name: str) -> None:
        await _awaited(self._sync.remove, name)

    async def pause(self, name: str) -> None:
        await _awaited(self._sync.pause, name)

    async def resume(self, name: str) -> None:
        await _awaited(self._sync.resume, name)

    async def get(self, name: str) -> Schedule:
        return await _awaited(self._sync.get, name)

    async def list(self, *, page: int = 1000) -> List[Schedule]:
        return await _awaited(self._sync.list, page=page)

    async def next(self, name: str, n: int = 1) -> List[datetime.datetime]:
        return await _awaited(self._sync.next, name, n)

    async def tick_of(self, job: int) -> Optional[Tuple[str, datetime.datetime]]:
        return await _awaited(self._sync.tick_of, job)
