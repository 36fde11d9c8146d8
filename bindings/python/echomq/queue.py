"""A queue of fair lanes, bound to one client."""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any, Dict, Iterable, Iterator, List, Mapping, Optional, Tuple, Union

from . import _convert, _echomq, _trace
from . import flows as _flows
from .info import Event, LaneInfo, QueueStats
from .errors import InvalidArgument, JobPendingError, NotFoundError
from .job import Job
from .schedules import Schedules
from .lifecycle import LifecycleCalls, job_limits

if TYPE_CHECKING:
    from .flows import FlowInfo, FlowResult
    from .client import Client


class _Unset:
    """Marker for "leave this setting as it is"."""

    _instance: Optional["_Unset"] = None

    def __new__(cls) -> "_Unset":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNSET"


UNSET = _Unset()
"""Default of :meth:`Queue.defaults` parameters: leave the setting unchanged."""


class Queue(LifecycleCalls):
    """One queue on one client: enqueue, claim, lane control and inspection.

    Get one from :meth:`echomq.Client.queue`.  Every job of the queue lives in
    a lane named by its group (a tenant, user, player, ...); claims rotate
    over the lanes so that a deep lane cannot delay a shallow one.

    A ``Queue`` uses its client's single connection; for parallel work give
    each thread its own :class:`~echomq.Client` (as :class:`~echomq.Worker`
    does).
    """

    __slots__ = ("_client", "_name", "_lease_default_ms")

    def __init__(self, client: "Client", name: str, *, lease: _convert.Seconds = 30.0) -> None:
        self._client = client
        self._name = _convert.queue_name(name)
        self._lease_default_ms = _convert.to_ms("lease", lease, maximum=_echomq.LEASE_MAX_MS)

    @property
    def name(self) -> str:
        """The queue name."""
        return self._name

    @property
    def client(self) -> "Client":
        """The client this queue talks through."""
        return self._client

    @property
    def lease(self) -> float:
        """Default lease of claims, in seconds."""
        return self._lease_default_ms / 1000.0

    def _lease_ms(self, lease: Optional[_convert.Seconds], name: str = "lease") -> int:
        if lease is None:
            return self._lease_default_ms
        return _convert.to_ms(name, lease, maximum=_echomq.LEASE_MAX_MS)

    # -- enqueue -----------------------------------------------------------

    def enqueue(
        self,
        group: str,
        payload: _convert.Payload,
        *,
        delay: Optional[_convert.Seconds] = None,
        at: Optional[datetime.datetime] = None,
        max_attempts: Optional[int] = None,
        key: Optional[str] = None,
        dedup_window: Optional[_convert.Seconds] = None,
        keep: Optional[_convert.Seconds] = None,
        keep_last: Optional[int] = None,
        cost_estimate: Optional[int] = None,
        timeout: Optional[_convert.Seconds] = None,
        ttl: Optional[_convert.Seconds] = None,
        expires_at: Optional[datetime.datetime] = None,
        expire_drop: bool = False,
        name: Optional[str] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> "JobId":
        """Enqueue one job on lane ``group`` and return its id.

        Args:
            group: the lane (1..256 bytes of printable UTF-8).
            payload: bytes, or str sent as UTF-8.
            delay: seconds before the job becomes claimable (``None`` = now).
            at: or when it becomes claimable: an aware datetime, compared
                with the server's clock (a time past is now); a naive one is
                refused, as its clock is unknown. Not with ``delay``.
            max_attempts: deliveries before dead-lettering (``None`` = the
                queue default).
            key: an idempotency key (1..``DEDUP_KEY_MAX`` bytes). When the
                queue saw it within its window, nothing is enqueued and the
                first job's id comes back with ``duplicate`` set.
            dedup_window: seconds the key is remembered (``None`` = 24 h, at
                most 7 days).
            keep, keep_last: this job's own retention once it completes
                (see :meth:`retain`; ``None`` = the queue's).
            cost_estimate: in cost mode (:meth:`cost_mode`), what the job is
                expected to cost, in the queue's cost units (1..``ID_MAX``;
                ``None`` = none). Its lane is charged it when the job is
                claimed; the real cost reported when it settles
                (:meth:`Job.report_cost`) replaces it. Outside cost mode it
                is checked and not kept.
            timeout: how long one attempt may run, seconds (``None`` = the
                queue's :meth:`default_timeout`). When it runs out a worker
                tells the handler (:attr:`Job.cancelled`) and the attempt
                fails "timed out" and is retried by the usual policy.
            ttl, expires_at: a deadline to start, seconds from now or an
                aware datetime (server clock), not both: a job not started
                by then never starts. It dies "expired" (or is removed,
                ``expire_drop=True``). A deadline past, or before the job is
                due, is refused.
            name: the job's name (kind), 1..``JOB_NAME_MAX`` bytes, no
                control character; ``None`` = none. Kept with the job
                (:attr:`Job.name`); a tasks :class:`echomq.App` dispatches
                on it.
            headers: a small dict of str to str kept with the job
                (:attr:`Job.headers`): at most ``HEADERS_MAX`` entries of
                ``HEADERS_BYTES_MAX`` bytes in all, no control character.

        Returns:
            the job id, an ``int`` whose ``duplicate`` attribute says whether
            it is the id of an earlier job with the same key.

        Raises:
            InvalidArgument: bad group or option (nothing was sent).
            TooLargeError: payload over the client's limit.
            TimeoutError: outcome unknown; the job may exist.
        """
        g = _convert.group_name(group)
        p = _convert.payload_bytes(payload)
        options = _enqueue_options(delay, max_attempts, dedup_window, keep, keep_last, cost_estimate, at)
        options.update(job_limits(timeout, ttl, expires_at, expire_drop))
        options.update(job_meta(name, headers))
        k = None if key is None else _dedup_key(key)
        if k == "":
            raise InvalidArgument("idempotency key is empty (None means none)")
        if _trace.hook is not None:  # tracing on (echomq.otel): a PRODUCER span, its context in the headers
            return _trace.hook.send(self._name, g, options,
                                    lambda o: JobId(*self._client._raw.enqueue(self._name, g, p, o, k)), None)
        return JobId(*self._client._raw.enqueue(self._name, g, p, options, k))

    def enqueue_many(
        self,
        jobs: Iterable[Tuple[str, _convert.Payload]],
        *,
        delay: Optional[_convert.Seconds] = None,
        at: Optional[datetime.datetime] = None,
        max_attempts: Optional[int] = None,
        dedup_window: Optional[_convert.Seconds] = None,
        keep: Optional[_convert.Seconds] = None,
        keep_last: Optional[int] = None,
        cost_estimate: Optional[int] = None,
        timeout: Optional[_convert.Seconds] = None,
        ttl: Optional[_convert.Seconds] = None,
        expires_at: Optional[datetime.datetime] = None,
        expire_drop: bool = False,
        name: Optional[str] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> List["JobId"]:
        """Enqueue many ``(group, payload)`` or ``(group, payload, key)``
        jobs in one round trip.

        A job with an idempotency key (not ``None``) that the queue saw
        within its window, or that an earlier job of the same call has, is
        not enqueued: its id is the first job's, with ``duplicate`` set.

        All or nothing: every job is checked before anything is sent, and a
        refused batch writes nothing.  Jobs are minted in the order given.
        Returns their ids in that order (an empty input sends nothing).
        ``cost_estimate``, ``at``, ``timeout``, ``ttl``, ``expires_at`` and
        ``expire_drop``, ``name`` and ``headers`` (as :meth:`enqueue`)
        apply to every job.

        Raises:
            InvalidArgument: a bad group or option (nothing was sent).
            TooLargeError: a payload over the limit, or more than
                ``echomq.BATCH_MAX`` jobs.
        """
        groups: List[bytes] = []
        payloads: List[bytes] = []
        keys: List[str] = []
        for i, item in enumerate(jobs):
            if not isinstance(item, (tuple, list)) or not 2 <= len(item) <= 3:
                got = f"a {type(item).__name__} of {len(item)}" if isinstance(item, (tuple, list)) else repr(item)
                raise InvalidArgument(f"job {i} must be (group, payload) or (group, payload, key), got {got}")
            groups.append(_convert.group_name(item[0]))
            payloads.append(_convert.payload_bytes(item[1]))
            key = item[2] if len(item) > 2 else None
            keys.append("" if key is None else _dedup_key(key))
        if not groups:
            return []
        options = _enqueue_options(delay, max_attempts, dedup_window, keep, keep_last, cost_estimate, at)
        options.update(job_limits(timeout, ttl, expires_at, expire_drop))
        options.update(job_meta(name, headers))
        ks = keys if any(keys) else None
        if _trace.hook is not None:  # one PRODUCER span for the batch, its context in every job
            out = _trace.hook.send(self._name, None, options,
                                   lambda o: self._client._raw.enqueue_batch(self._name, groups, payloads, ks, o),
                                   len(groups))
        else:
            out = self._client._raw.enqueue_batch(self._name, groups, payloads, ks, options)
        return [JobId(jid, dup) for jid, dup in out]

    @property
    def schedules(self) -> "Schedules":
        """The queue's schedules: periodic jobs (:mod:`echomq.schedules`)."""
        return Schedules(self)

    # -- claim -------------------------------------------------------------

    def claim(
        self, lease: Optional[_convert.Seconds] = None, *, wait: Optional[_convert.Seconds] = None
    ) -> Optional[Job]:
        """Claim the next job of the ring, or ``None`` if nothing is ready.

        Args:
            lease: seconds the job is ours before it comes back to its lane
                (``None`` = the queue's default lease).
            wait: if given, block up to this many seconds on the server for
                work to arrive (no polling; the GIL is released meanwhile).
                ``client.cancel()`` from another thread interrupts the wait
                with :class:`~echomq.CanceledError`.

        Raises:
            TimeoutError: outcome unknown (a job may have been leased; it
                comes back when its lease expires).
        """
        ms = self._lease_ms(lease)
        raw_client = self._client._raw
        if wait is None:
            raw = raw_client.claim(self._name, ms)
        else:
            wait_ms = _convert.to_ms("wait", wait, minimum=0, maximum=_echomq.WAIT_MAX_MS)
            raw = raw_client.claim(self._name, ms) if wait_ms == 0 else raw_client.bclaim(self._name, ms, wait_ms)
        return None if raw is None else Job._from_raw(self, raw)

    def wclaim(self, lease: Optional[_convert.Seconds] = None, max: Optional[int] = None) -> List[Job]:
        """Weighted claim: up to ``max`` jobs from ONE lane, in mint order.

        The ring rotates one step as for :meth:`claim`, then the lane gives
        min(weight, depth, limit - active, max) jobs.  Returns an empty list
        when nothing is ready.  ``max`` defaults to ``echomq.WCLAIM_MAX``.
        """
        ms = self._lease_ms(lease)
        k = _echomq.WCLAIM_MAX if max is None else _convert.to_count("max", max, maximum=_echomq.WCLAIM_MAX)
        return [Job._from_raw(self, raw) for raw in self._client._raw.wclaim(self._name, ms, k)]

    def claim_batch(self, n: int, lease: Optional[_convert.Seconds] = None, *, weighted: bool = False) -> List[Job]:
        """Claim up to ``n`` jobs (1..``echomq.BATCH_MAX``) in one call.

        Unweighted: exactly the jobs, order and tokens of ``n`` successive
        :meth:`claim` calls from the same state (one job per lane per turn).
        ``weighted=True``: each turn serves min(weight, depth, limit - active)
        jobs of its lane, as :meth:`wclaim` does, until ``n`` are taken (the
        last turn may be cut short).  Returns the jobs in service order, an
        empty list when nothing is ready.
        """
        k = _convert.to_count("n", n, maximum=_echomq.BATCH_MAX)
        ms = self._lease_ms(lease)
        raws = self._client._raw.claim_batch(self._name, ms, k, bool(weighted))
        return [Job._from_raw(self, raw) for raw in raws]

    def ack_many(self, jobs: Iterable[Job]) -> List[Job]:
        """Acknowledge many leased jobs (typically one :meth:`wclaim`'s) in
        one round trip per ``echomq.WCLAIM_MAX`` jobs.

        Each job is settled on its own.  Returns the jobs whose ack was
        refused (their lease was lost, or they no longer exist); those are
        unchanged.  An empty list means every job was acked.
        """
        todo = list(jobs)
        refused: List[Job] = []
        step = _echomq.WCLAIM_MAX
        for i in range(0, len(todo), step):
            chunk = todo[i : i + step]
            statuses = self._client._raw.ack_many(self._name, [j.id for j in chunk], [j.token for j in chunk])
            refused.extend(j for j, st in zip(chunk, statuses) if st != 0)
        return refused

    # -- lane control ------------------------------------------------------

    def weight(self, group: str, w: Optional[int]) -> None:
        """Set lane ``group``'s weight (its share per ring turn under
        :meth:`wclaim`), or clear it back to the queue default with ``None``."""
        g = _convert.group_name(group)
        if w is None:
            self._client._raw.clear_weight(self._name, g)
        else:
            self._client._raw.set_weight(self._name, g, _convert.to_count("weight", w, maximum=_echomq.WEIGHT_MAX))

    def limit(self, group: str, n: Optional[int]) -> None:
        """Set lane ``group``'s concurrency ceiling (at most ``n`` jobs leased
        at once), or clear it back to the queue default with ``None``."""
        g = _convert.group_name(group)
        if n is None:
            self._client._raw.clear_limit(self._name, g)
        else:
            self._client._raw.set_limit(self._name, g, _convert.to_count("limit", n, maximum=_echomq.LIMIT_MAX))

    def rate(self, group: str, jobs: Optional[int], per: _convert.Seconds = 1.0, *, burst: Optional[int] = None) -> None:
        """Limit lane ``group`` to ``jobs`` job starts per ``per`` seconds, in
        bursts of up to ``burst`` (default ``jobs``): a token bucket on the
        server's clock.  A lane out of tokens leaves the ring and rejoins by
        itself.  ``jobs=None`` clears the lane's own rate (the queue default
        applies)."""
        g = _convert.group_name(group)
        if jobs is None:
            self._client._raw.clear_rate(self._name, g)
            return
        j = _convert.to_count("jobs", jobs, maximum=_echomq.RATE_JOBS_MAX)
        p = _convert.to_ms("per", per, maximum=_echomq.RATE_PERIOD_MAX_MS)
        b = 0 if burst is None else _convert.to_count("burst", burst, maximum=_echomq.RATE_JOBS_MAX)
        self._client._raw.set_rate(self._name, g, j, p, b)

    @property
    def cost_quantum(self) -> int:
        """The queue's cost quantum; 0 when turns count jobs (the default)."""
        return int(self._client._raw.get_cost_mode(self._name))

    @property
    def wait_window(self) -> Optional[int]:
        """The window of the queue's wait figures in seconds; ``None`` while
        they are off (the default)."""
        return int(self._client._raw.get_wait_figures(self._name)) or None

    def wait_figures(self, window: Optional[int]) -> None:
        """Per-lane wait figures: with a window of ``window`` seconds every
        claim records each lane's wait from enqueue to first delivery and
        its deliveries, and :meth:`lane` reports them over the last one to
        two windows (``wait_p50``, ``wait_p99``, ``window_share`` against
        ``fair_share``).  ``None`` turns them off and drops them."""
        w = 0 if window is None else _convert.to_count("window", window, maximum=_echomq.WAIT_WINDOW_MAX_S)
        self._client._raw.set_wait_figures(self._name, w)

    def cost_mode(self, quantum: Optional[int]) -> None:
        """Cost mode: lanes share the cost of their work instead of their
        job count.  Each lane is charged what its jobs cost, divided by its
        weight (the handler time a :class:`~echomq.Worker` measures, in
        microseconds, or what the handler reports with
        :meth:`Job.report_cost`); a lane more than ``quantum`` units past
        the least charged sits out, off the ring, until they catch up.
        ``None`` turns it off."""
        q = 0 if quantum is None else _convert.to_count("quantum", quantum, maximum=_echomq.ID_MAX)
        self._client._raw.set_cost_mode(self._name, q)

    def charge(self, group: str, units: int) -> None:
        """Charge lane ``group`` ``units`` of work done (cost mode; ignored
        otherwise): how a job claimed by hand reports what it cost."""
        if isinstance(units, bool) or not isinstance(units, int) or units < 0 or units > _echomq.ID_MAX:
            raise InvalidArgument(f"cost must be an int 0..{_echomq.ID_MAX}")
        self._client._raw.charge(self._name, _convert.group_name(group), units)

    def throttle(self, group: str, seconds: _convert.Seconds) -> None:
        """Start no job of lane ``group`` for ``seconds`` (back off by hand,
        e.g. after a downstream service answered 429); then it runs again."""
        ms = _convert.to_ms("seconds", seconds, maximum=_echomq.DELAY_MAX_MS)
        self._client._raw.throttle(self._name, _convert.group_name(group), ms)

    def cap(self, group: str, n: Optional[int]) -> None:
        """Cap lane ``group`` at ``n`` jobs waiting (pending + delayed): an
        enqueue past it raises :class:`~echomq.FullError` and writes nothing.
        ``None`` clears the lane's own cap."""
        g = _convert.group_name(group)
        if n is None:
            self._client._raw.clear_cap(self._name, g)
        else:
            self._client._raw.set_cap(self._name, g, _convert.to_count("cap", n, maximum=_echomq.CAP_MAX))

    def pause(self, group: str) -> None:
        """Pause lane ``group``: it keeps its jobs and is never served until
        :meth:`resume`.  Idempotent."""
        self._client._raw.pause(self._name, _convert.group_name(group))

    def resume(self, group: str) -> None:
        """Resume a paused lane.  Idempotent."""
        self._client._raw.resume(self._name, _convert.group_name(group))

    def defaults(
        self,
        *,
        weight: Union[int, _Unset] = UNSET,
        limit: Union[int, None, _Unset] = UNSET,
        max_attempts: Union[int, _Unset] = UNSET,
        rate: Union[Tuple[int, _convert.Seconds], None, _Unset] = UNSET,
        cap: Union[int, None, _Unset] = UNSET,
    ) -> None:
        """Set queue-wide defaults for lanes without their own setting.

        Only the settings given change.  ``limit=None`` clears the default
        limit (lanes unlimited).  ``max_attempts`` applies to jobs enqueued
        without their own.  ``rate=(jobs, per_seconds)`` or ``None``;
        ``cap=n`` or ``None``.  All values are checked before anything is sent.
        """
        rj, rp = -1, 1
        if not isinstance(rate, _Unset):
            if rate is None:
                rj = 0
            elif not isinstance(rate, (tuple, list)) or len(rate) != 2:
                raise TypeError(f"rate must be a (jobs, per_seconds) pair or None, not {rate!r}")
            else:
                rj = _convert.to_count("rate jobs", rate[0], maximum=_echomq.RATE_JOBS_MAX)
                rp = _convert.to_ms("rate period", rate[1], maximum=_echomq.RATE_PERIOD_MAX_MS)
        cp = -1
        if not isinstance(cap, _Unset):
            cp = 0 if cap is None else _convert.to_count("cap", cap, maximum=_echomq.CAP_MAX)
        w = None if isinstance(weight, _Unset) else _convert.to_count("weight", weight, maximum=_echomq.WEIGHT_MAX)
        lim: Optional[int] = None
        if not isinstance(limit, _Unset):
            lim = 0 if limit is None else _convert.to_count("limit", limit, maximum=_echomq.LIMIT_MAX)
        att = (
            None
            if isinstance(max_attempts, _Unset)
            else _convert.to_count("max_attempts", max_attempts, maximum=_echomq.ATTEMPTS_MAX)
        )
        raw = self._client._raw
        if w is not None:
            raw.set_default_weight(self._name, w)
        if lim is not None:
            raw.set_default_limit(self._name, lim)
        if att is not None:
            raw.set_default_max_attempts(self._name, att)
        if rj >= 0:
            raw.set_default_rate(self._name, rj, rp, 0)
        if cp >= 0:
            raw.set_default_cap(self._name, cp)

    # -- inspection --------------------------------------------------------

    def stats(self) -> QueueStats:
        """The queue's figures now."""
        return QueueStats._from_raw(self._client._raw.stats(self._name))

    def lane(self, group: str) -> LaneInfo:
        """One lane's figures (an unknown lane reports zeros and defaults)."""
        return LaneInfo._from_raw(self._client._raw.lane(self._name, _convert.group_name(group)))

    def lanes(self, *, after: Optional[str] = None, page_size: int = 1000) -> Iterator[LaneInfo]:
        """Iterate over the lanes in byte order of their names, fetching
        ``page_size`` lanes per round trip (bounded work on the server)."""
        count = _convert.to_count("page_size", page_size, maximum=10000)
        cursor = "" if after is None else after
        while True:
            page, nxt = self._client._raw.lanes(self._name, cursor, count)
            for d in page:
                yield LaneInfo._from_raw(d)
            if nxt is None or not page:
                return
            cursor = nxt

    def dead(self, offset: int = 0, count: int = 100) -> List[Job]:
        """Dead-lettered jobs, oldest death first: ``count`` (1..10000) from
        ``offset``.  Their ``attempt`` is the attempts used, ``token`` the
        fencing token of their last delivery, ``last_error`` the final
        failure reason and ``dead_at`` the time of death."""
        off = _convert.to_count("offset", offset, minimum=0, maximum=2**64 - 1)
        n = _convert.to_count("count", count, maximum=10000)
        return [Job._from_raw(self, raw) for raw in self._client._raw.dead(self._name, off, n)]

    def redrive(self, jobs: Optional[Iterable[Union[int, Job]]] = None) -> int:
        """Move dead jobs back to their lanes with a fresh attempt budget.

        ``jobs``: job ids or :class:`Job` objects; ids that are not dead are
        skipped.  ``None`` redrives every dead job.  Returns how many moved.
        """
        raw = self._client._raw
        if jobs is None:
            return int(raw.redrive_all(self._name))
        ids = [_convert.to_id("job id", j.id if isinstance(j, Job) else j) for j in jobs]
        moved = 0
        for i in range(0, len(ids), 10000):  # the C API takes at most 10000 ids per call
            moved += int(raw.redrive(self._name, ids[i : i + 10000]))
        return moved

    # -- everyday operations ---------------------------------------------------

    def job(self, id: int) -> Optional[Job]:
        """Look a job up by id, wherever it is: ``state`` (pending, leased,
        delayed, dead, or completed when retained), ``group``, ``payload``,
        ``token`` (the fencing token of its latest delivery, 0 before the
        first), ``attempt``, ``max_attempts``, times,
        ``last_error``, ``progress`` and a retained job's ``result``.  A
        read-only call.  Returns ``None`` for no such job (acked and not
        retained, deleted, never enqueued)."""
        jid = _job_id(id)
        try:
            raw = self._client._raw.get_job(self._name, jid)
        except NotFoundError:
            return None
        return Job._from_raw(self, raw)

    # -- outcomes (docs/operations.md "Outcomes") ------------------------------

    def retain(self, keep: Optional[_convert.Seconds] = None, last: Optional[int] = None) -> None:
        """Keep the outcome of jobs that complete from now on: for ``keep``
        seconds, and/or while among the ``last`` jobs completed with a
        retention (at least one of them; both bound it when both are set).
        ``Queue.job`` then shows a completed job (``state == "completed"``)
        with its ``result``, times and last ``progress``.

        Raises:
            InvalidArgument: neither given, zero or negative values (nothing
                was sent); :meth:`clear_retention` turns it off.
        """
        if keep is None and last is None:
            raise InvalidArgument("retain needs keep or last (clear_retention turns it off)")
        keep_ms = 0 if keep is None else _convert.to_ms("keep", keep, maximum=_echomq.KEEP_MAX_MS)
        n = 0 if last is None else _convert.to_count("last", last)
        self._client._raw.set_retention(self._name, keep_ms, n)

    def clear_retention(self) -> None:
        """Stop retaining outcomes (jobs kept so far age out)."""
        self._client._raw.clear_retention(self._name)

    def set_events(self, max_len: int, *, enqueued: bool = False) -> None:
        """Turn the event stream on, kept near ``max_len`` entries; with
        ``enqueued`` every enqueue is an event too (the costly one)."""
        n = _convert.to_count("max_len", max_len, maximum=_echomq.EVENTS_MAXLEN_MAX)
        self._client._raw.set_events(self._name, n, _echomq.EVENTS_ENQUEUED if enqueued else 0)

    def clear_events(self) -> None:
        """Turn the event stream off (the stream stays until it is deleted)."""
        self._client._raw.clear_events(self._name)

    def wait(self, job: Union[int, Job], timeout: Optional[_convert.Seconds] = None) -> Job:
        """Wait for a job to complete or die, blocking on the server (no
        polling), and return what became of it (``state`` ``"completed"``
        with its ``result``, or ``"dead"``); at once when it already has.
        ``timeout``: seconds (``None`` = 24 h, ``0`` = do not wait).
        ``Client.cancel()`` from another thread interrupts it.

        Waiting works without a retention only for a waiter that began
        before the job finished (its outcome is then kept at least
        ``WAIT_GRACE_MS``); a job that finished unretained is not found.

        Raises:
            JobPendingError: it had not finished in time.
            NotFoundError: no such job.
            CanceledError: interrupted by ``Client.cancel()``.
        """
        jid = job.id if isinstance(job, Job) else _job_id(job)
        ms = _echomq.WAIT_MAX_MS if timeout is None else _convert.to_ms(
            "timeout", timeout, minimum=0, maximum=_echomq.WAIT_MAX_MS)
        raw = self._client._raw.wait_job(self._name, jid, ms)
        if raw is None:
            raise JobPendingError("job %d had not finished after %d ms" % (jid, ms), 4)
        return Job._from_raw(self, raw)

    def events(
        self, after: str = "0", *, follow: bool = False, block: _convert.Seconds = 5.0, count: int = 1000
    ) -> Iterator[Event]:
        """The queue's event stream, oldest first from stream id ``after``
        (``"0"`` = the oldest kept, ``"$"`` = only new ones).  Without
        ``follow`` it ends at the last entry; with it, it waits on the server
        (``block`` seconds per read) for more and never ends by itself
        (``Client.cancel()`` ends a wait with CanceledError).  For a group of
        consumers read the stream with XREADGROUP (docs/keys.md "Events")."""
        block_ms = _convert.to_ms("block", block, maximum=_echomq.WAIT_MAX_MS)
        raw = self._client._raw
        while True:
            entries = raw.events_read(self._name, after, count, block_ms if follow else 0)
            for e in entries:
                after = e[0]
                yield Event._from_raw(e)
            if not entries and not follow:
                return
            if after == "$" and entries:
                after = entries[-1][0]

    # -- flows (docs/operations.md "Flows"; echomq/flows.py) --------------------

    def enqueue_flow(self, flow: "Any", *, max_attempts: Optional[int] = None) -> "FlowResult":
        """Enqueue a flow (an :class:`echomq.Flow`, or a ``chain``, ``group``
        or ``chord``) whole, in one call, all or nothing: its ids by name.

        Raises:
            InvalidArgument: a cycle, a parent not in the flow, a job of
                another queue, a name twice; nothing was written.
            TooLargeError: more than 1,000 jobs; nothing was written.
        """
        return _flows.enqueue_flow(self, flow, max_attempts=max_attempts)

    def flow_info(self, job: Union[int, Job]) -> "FlowInfo":
        """A job's links: the parent that waits for it, its children and
        what became of each (NotFoundError: no such job)."""
        return _flows.flow_info(self, job.id if isinstance(job, Job) else _job_id(job))

    def delete_flow(self, job: Union[int, Job]) -> int:
        """Delete the unfinished flow ``job`` belongs to, whole; the jobs
        deleted (LeasedError: a job of it is leased now, nothing changed)."""
        return _flows.delete_flow(self, job.id if isinstance(job, Job) else _job_id(job))

    def delete(self, job: Union[int, Job]) -> None:
        """Delete a pending, delayed or dead job (its lane's counts and ring
        place are kept right).

        Raises:
            LeasedError: a worker holds it now; nothing changed.
            FlowError: it is part of a flow that has not finished
                (:meth:`delete_flow` deletes the flow whole).
            NotFoundError: no such job.
        """
        jid = job.id if isinstance(job, Job) else _job_id(job)
        self._client._raw.delete_job(self._name, jid)

    def purge(self, group: str, *, clear_settings: bool = False, step: int = 10000) -> int:
        """Delete every waiting (pending or delayed) job of lane ``group``, in
        bounded steps of ``step`` jobs (one round trip each); leased jobs run
        on and dead jobs stay.  The lane's weight, limit, rate, cap and pause
        stay unless ``clear_settings``.  Returns how many jobs were deleted."""
        g = _convert.group_name(group)
        n = _convert.to_count("step", step, maximum=_echomq.PURGE_MAX)
        raw = self._client._raw
        total, cursor, more = 0, 0, True
        while more:
            removed, more, cursor = raw.purge_lane(self._name, g, n, bool(clear_settings), cursor)
            total += removed
        return total

    def shards(self) -> List[str]:
        """The shard queues of a sharded queue, in shard order, read from
        the server (``[]`` for a plain queue).  See
        :meth:`echomq.Client.create_sharded`."""
        return list(self._client._raw.shards(self._name))

    def verify(self) -> List[str]:
        """Check the queue's invariants (ring = serviceable lanes, active
        counts = leases, every job in exactly one place, counters).  Returns
        one line per violation; an empty list means healthy.  O(jobs + lanes):
        an operator's call."""
        return list(self._client._raw.verify(self._name))

    def repair(self, apply: bool = False, step: int = 1000) -> List[str]:
        """Rebuild the ring, active and live counts, lane directory and
        counters from where the jobs really are (docs/operations.md,
        "Repair").  A dry run unless ``apply`` is true: returns one line per
        change, made only when ``apply``.  Walks the queue in bounded steps
        of about ``step`` items (1..10000); stop the workers first."""
        lines: List[str] = []
        cursor: Optional[str] = ""
        while cursor is not None:
            got, cursor = self._client._raw.repair(self._name, apply, cursor, step)
            lines.extend(got)
        return lines

    def doctor(self, acl_user: Optional[str] = None) -> List[str]:
        """Check the server this queue runs on: one line per check,
        ``"<ok|warn|fail> <check>: <finding>; <advice>"`` for the version
        (the 2025 Lua sandbox fixes), maxmemory-policy, persistence,
        replicas, cluster mode and the operations ``acl_user`` (default: the
        connected user) may run on the queue.  Reads only."""
        return list(self._client._raw.doctor(self._name, acl_user or ""))

    def __repr__(self) -> str:
        return f"Queue({self._name!r})"


class JobId(int):
    """A job id returned by an enqueue: an ``int`` that also says whether it
    is the id of an earlier job with the same idempotency key
    (``duplicate``: nothing was enqueued)."""

    duplicate: bool

    def __new__(cls, value: int, duplicate: bool = False) -> "JobId":
        self = super().__new__(cls, value)
        self.duplicate = bool(duplicate)
        return self


def _dedup_key(key: object) -> str:
    if not isinstance(key, str):
        raise InvalidArgument(f"idempotency key must be a str, not {type(key).__name__}")
    if len(key.encode("utf-8")) > _echomq.DEDUP_KEY_MAX:
        raise InvalidArgument(f"idempotency key is longer than {_echomq.DEDUP_KEY_MAX} bytes")
    if "\0" in key:
        raise InvalidArgument("idempotency key holds a NUL")
    return key


def _job_id(id: object) -> int:
    if isinstance(id, bool) or not isinstance(id, int) or id < 1:
        raise InvalidArgument(f"job id must be an int >= 1, not {id!r}")
    return id


def job_meta(name: Optional[str], headers: Optional[Mapping[str, str]]) -> Dict[str, Any]:
    """A job's name and headers as enqueue options (the library checks
    their bytes and sizes before any I/O)."""
    o: Dict[str, Any] = {}
    if name is not None:
        if not isinstance(name, str) or not name:
            raise InvalidArgument(f"job name must be a non-empty str, got {name!r}")
        o["name"] = name
    if headers:
        if not isinstance(headers, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in headers.items()
        ):
            raise InvalidArgument("headers must map str to str")
        o["headers"] = dict(headers)
    return o


def _enqueue_options(
    delay: Optional[_convert.Seconds],
    max_attempts: Optional[int],
    dedup_window: Optional[_convert.Seconds],
    keep: Optional[_convert.Seconds],
    keep_last: Optional[int],
    cost_estimate: Optional[int],
    at: Optional[datetime.datetime] = None,
) -> Dict[str, int]:
    """The options of an enqueue, checked, by their C names
    (echomq_enqueue_options); None leaves the library's default."""
    o: Dict[str, int] = {}
    if delay is not None:
        o["delay_ms"] = _convert.to_ms("delay", delay, minimum=0, maximum=_echomq.DELAY_MAX_MS)
    if max_attempts is not None:
        o["max_attempts"] = _convert.to_count("max_attempts", max_attempts, maximum=_echomq.ATTEMPTS_MAX)
    if dedup_window is not None:
        o["dedup_window_ms"] = _convert.to_ms("dedup_window", dedup_window, maximum=_echomq.DEDUP_WINDOW_MAX_MS)
    if keep is not None:
        o["keep_ms"] = _convert.to_ms("keep", keep, maximum=_echomq.KEEP_MAX_MS)
    if keep_last is not None:
        o["keep_last"] = _convert.to_count("keep_last", keep_last, maximum=_echomq.KEEP_LAST_MAX)
    if cost_estimate is not None:
        o["cost_estimate"] = _convert.to_count("cost_estimate", cost_estimate, maximum=_echomq.ID_MAX)
    if at is not None:
        if delay is not None:
            raise InvalidArgument("give delay or at, not both")
        o["at_ms"] = _convert.epoch_ms("at", at)
    return o
