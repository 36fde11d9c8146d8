"""A worker that runs a handler over a queue with N concurrent slots.

Each slot is a thread with its own :class:`~echomq.Client` (one connection
each).  A slot claims one job at a time, runs the handler, acks on return
(fused with the next claim: one round trip per job) and fails the attempt
with the exception text on raise.  A keeper thread with its own connection
extends the leases of jobs that run long, so a slow handler keeps its job.

Stopping (``stop()``, SIGINT or SIGTERM under :meth:`Worker.run`) claims
nothing new and lets every running handler finish and settle its job:
nothing is left half-done or under lease.  Slots waiting for work are woken
at once with ``Client.cancel()``, which interrupts only the server-side wait
of a blocking claim (a cancelled claim has claimed nothing; a claim already
in its script returns its job, which the slot runs and settles before it
stops).  A second signal stops waiting: the clients are
closed (interrupting their calls) and the jobs still running come back to
their lanes when their leases expire (delivery is at-least-once, so nothing
is lost).
"""

from __future__ import annotations

import logging
import signal
import threading
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional

from . import _convert
from .client import Client
from .errors import CanceledError, EchoMQError, NotFoundError, StaleLeaseError
from .job import FailOutcome, Job
from .queue import Queue

log = logging.getLogger("echomq.worker")

Handler = Callable[[Job], Any]
"""A handler takes the claimed :class:`~echomq.Job`; its return acks the job
and an exception fails the attempt."""


@dataclass
class WorkerStats:
    """What a worker did.

    Attributes:
        acked: jobs the handler finished and that were acknowledged.
        failed: handler exceptions (each failed one attempt).
        retried: failed attempts that were re-queued.
        dead: failed attempts that dead-lettered their job.
        lost: jobs whose lease was lost before they could be settled (they
            were, or will be, delivered again).
        errors: connection or server errors met (and retried) by the slots.
    """

    acked: int = 0
    failed: int = 0
    retried: int = 0
    dead: int = 0
    lost: int = 0
    errors: int = 0


class _Held:
    """A job a slot is running, as the lease keeper sees it."""

    __slots__ = ("job", "renew_at")

    def __init__(self, job: Job, renew_at: float) -> None:
        self.job = job
        self.renew_at = renew_at


class _Slot:
    __slots__ = ("index", "client", "queue", "thread")

    def __init__(self, index: int) -> None:
        self.index = index
        self.client: Optional[Client] = None
        self.queue: Optional[Queue] = None
        self.thread: Optional[threading.Thread] = None


class Worker:
    """Runs ``handler(job)`` over ``queue`` with ``concurrency`` slots.

    Args:
        queue: the queue to drain; its client gives the URL and options of the
            slots' own clients (the queue's client itself is not used by the
            slots).
        handler: called with each :class:`~echomq.Job`; returning acks it,
            raising fails the attempt with the exception text.
        concurrency: slots (threads, one connection each).
        lease: lease per job in seconds (default: the queue's); long-running
            jobs are extended automatically before half of it has passed.
        wait: seconds a slot with nothing to do waits on the server per
            blocking claim (it wakes at once when work arrives); also the
            longest a graceful stop waits for an idle slot.
        retry_in: retry delay after a failure: ``None`` = exponential backoff,
            ``0`` = straight back to the lane, or seconds.
        fused: ack and claim the next job in one round trip.
        idle_timeout: if set, a slot stops once no job was ready for that many
            seconds (a "burst" run that drains the queue and returns).

    Example::

        def score(job):
            ...

        q = echomq.connect(url).queue("guesses")
        echomq.Worker(q, score, concurrency=4).run()   # until SIGINT/SIGTERM
    """

    def __init__(
        self,
        queue: Queue,
        handler: Handler,
        *,
        concurrency: int = 4,
        lease: Optional[_convert.Seconds] = None,
        wait: _convert.Seconds = 1.0,
        retry_in: Optional[_convert.Seconds] = None,
        fused: bool = True,
        idle_timeout: Optional[_convert.Seconds] = None,
    ) -> None:
        if not isinstance(queue, Queue):
            raise TypeError(f"queue must be an echomq.Queue, not {type(queue).__name__}")
        if not callable(handler):
            raise TypeError("handler must be callable")
        self._queue = queue
        self._handler = handler
        self._concurrency = _convert.to_count("concurrency", concurrency, maximum=1024)
        self._lease = queue.lease if lease is None else _convert.to_ms("lease", lease) / 1000.0
        self._wait = _convert.to_ms("wait", wait) / 1000.0
        self._retry_in = retry_in if retry_in is None else _convert.to_ms("retry_in", retry_in, minimum=0) / 1000.0
        self._fused = bool(fused)
        self._idle = None if idle_timeout is None else _convert.to_ms("idle_timeout", idle_timeout) / 1000.0
        self._stop = threading.Event()
        self._abandon = threading.Event()
        self._lock = threading.Lock()
        self._held: Dict[int, _Held] = {}
        self._stats = WorkerStats()
        self._slots: List[_Slot] = []
        self._keeper: Optional[threading.Thread] = None
        self._started = False

    # -- public control ----------------------------------------------------

    @property
    def stats(self) -> WorkerStats:
        """A copy of the counters so far."""
        with self._lock:
            return WorkerStats(**vars(self._stats))

    @property
    def stopping(self) -> bool:
        """True once a stop was requested."""
        return self._stop.is_set()

    def start(self) -> None:
        """Start the slots and the lease keeper in background threads and
        return.  Stop with :meth:`stop`.  Connection errors of the first
        connect are raised here."""
        if self._started:
            raise RuntimeError("a Worker runs once")
        self._started = True
        base = self._queue.client
        try:
            for i in range(self._concurrency):
                slot = _Slot(i)
                slot.client = base.clone()
                slot.queue = slot.client.queue(self._queue.name, lease=self._lease)
                self._slots.append(slot)
            keeper_client = base.clone()
        except BaseException:
            for slot in self._slots:
                if slot.client is not None:
                    slot.client.close()
            raise
        for slot in self._slots:
            slot.thread = threading.Thread(
                target=self._slot_main, args=(slot,), name=f"echomq-slot-{slot.index}", daemon=True
            )
            slot.thread.start()
        self._keeper = threading.Thread(
            target=self._keeper_main, args=(keeper_client,), name="echomq-lease-keeper", daemon=True
        )
        self._keeper.start()

    def stop(self) -> None:
        """Ask the worker to stop: claim nothing new, let running handlers
        finish and settle their jobs.  Returns at once; see :meth:`join`.
        Safe to call from any thread or a signal handler."""
        self._stop.set()
        for slot in self._slots:  # wake idle slots now, not after their wait
            if slot.client is not None:
                slot.client.cancel()

    def join(self, timeout: Optional[float] = None) -> bool:
        """Wait for the slots to finish; True when they all have."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for slot in self._slots:
            while slot.thread is not None and slot.thread.is_alive():
                if self._abandon.is_set():
                    return False
                step = 0.1 if deadline is None else min(0.1, deadline - time.monotonic())
                if step <= 0:
                    return False
                slot.thread.join(step)
        self._stop.set()
        if self._keeper is not None:
            self._keeper.join()
        return True

    def run(self, *, handle_signals: bool = True) -> WorkerStats:
        """Run until stopped (or, with ``idle_timeout``, until the queue stays
        empty) and return the counters.

        With ``handle_signals`` (and when called from the main thread), SIGINT
        and SIGTERM stop the worker gracefully; a second signal stops waiting
        for running handlers (their jobs come back when the leases expire).
        The previous signal handlers are restored on return.
        """
        previous: Dict[signal.Signals, Any] = {}
        if handle_signals and threading.current_thread() is threading.main_thread():
            for sig in (signal.Signals.SIGINT, signal.Signals.SIGTERM):
                previous[sig] = signal.signal(sig, self._on_signal)
        try:
            self.start()
            self.join()
        finally:
            for sig, old in previous.items():
                signal.signal(sig, old)
            if self._abandon.is_set():
                self._close_all()
        return self.stats

    def __enter__(self) -> "Worker":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self.join()

    # -- internals -----------------------------------------------------------

    def _on_signal(self, signum: int, frame: object) -> None:
        if self._stop.is_set():
            log.warning("second signal %d: not waiting for running handlers", signum)
            self._abandon.set()
        else:
            log.info("signal %d: stopping after the running jobs", signum)
        self.stop()

    def _close_all(self) -> None:
        for slot in self._slots:
            if slot.client is not None:
                slot.client.close()

    def _count(self, field: str, n: int = 1) -> None:
        with self._lock:
            setattr(self._stats, field, getattr(self._stats, field) + n)

    def _hold(self, job: Job) -> None:
        with self._lock:
            self._held[job.id] = _Held(job, time.monotonic() + self._lease / 2)

    def _release(self, job: Job) -> None:
        with self._lock:
            self._held.pop(job.id, None)

    def _claim(self, slot: _Slot) -> Optional[Job]:
        """One blocking claim; None on timeout, cancel or a transient error."""
        assert slot.queue is not None
        wait = self._wait if self._idle is None else min(self._wait, self._idle)
        try:
            return slot.queue.claim(wait=wait)
        except CanceledError:  # woken by stop(), or closed by an abandoning stop
            return None

    def _slot_main(self, slot: _Slot) -> None:
        backoff = 0.05
        idle_since = time.monotonic()
        job: Optional[Job] = None
        try:
            while True:
                try:
                    if job is None:
                        if self._stop.is_set():
                            return
                        job = self._claim(slot)
                        if job is None:
                            if self._idle is not None and time.monotonic() - idle_since >= self._idle:
                                return
                            continue
                    idle_since = time.monotonic()
                    job = self._process(job)
                    backoff = 0.05
                except EchoMQError as exc:
                    # Connection trouble, or a settle whose outcome is unknown:
                    # the job is left to its lease and comes back if the
                    # settle did not happen.
                    job = None
                    self._count("errors")
                    log.warning("slot %d: %s; retrying in %.2fs", slot.index, exc, backoff)
                    if self._stop.wait(backoff):
                        return
                    backoff = min(backoff * 2, 2.0)
        finally:
            if slot.client is not None and not self._abandon.is_set():
                slot.client.close()

    def _process(self, job: Job) -> Optional[Job]:
        """Runs the handler on job, settles it; returns the next job if the
        ack was fused with a claim."""
        self._hold(job)
        try:
            try:
                self._handler(job)
            except Exception as exc:  # the handler's failure is the job's, not the worker's
                self._release(job)
                reason = "".join(traceback.format_exception_only(type(exc), exc)).strip()
                log.warning("job %d (lane %r, attempt %d) failed: %s", job.id, job.group, job.token, reason)
                log.debug("traceback of job %d", job.id, exc_info=exc)
                self._settle_failed(job, reason)
                return None
            self._release(job)
            try:
                if self._fused and not self._stop.is_set():
                    nxt = job.ack_and_claim(self._lease)
                else:
                    job.ack()
                    nxt = None
            except (StaleLeaseError, NotFoundError) as exc:
                self._count("lost")
                log.warning("job %d: lease lost before its ack (%s)", job.id, exc)
                return None
            self._count("acked")
            return nxt
        finally:
            self._release(job)

    def _settle_failed(self, job: Job, reason: str) -> None:
        self._count("failed")
        try:
            outcome = job.fail(reason, retry_in=self._retry_in)
        except (StaleLeaseError, NotFoundError) as exc:
            self._count("lost")
            log.warning("job %d: lease lost before its fail (%s)", job.id, exc)
            return
        self._count("dead" if outcome == FailOutcome.DEAD else "retried")

    def _keeper_main(self, client: Client) -> None:
        """Extends the leases of running jobs before half of them has passed."""
        tick = max(0.02, min(1.0, self._lease / 4))
        lease_ms = max(1, int(self._lease * 1000))
        name = self._queue.name
        try:
            while not (self._stop.is_set() and self._all_slots_done()):
                time.sleep(tick)
                now = time.monotonic()
                with self._lock:
                    due = [h for h in self._held.values() if h.renew_at <= now]
                for h in due:
                    try:
                        client._raw.extend(name, h.job.id, h.job.token, lease_ms)
                    except (StaleLeaseError, NotFoundError):
                        continue  # settled meanwhile, or lost: the slot finds out
                    except EchoMQError as exc:
                        self._count("errors")
                        log.warning("lease keeper: %s", exc)
                        continue
                    with self._lock:
                        if h.job.id in self._held:
                            h.renew_at = time.monotonic() + self._lease / 2
        finally:
            client.close()

    def _all_slots_done(self) -> bool:
        return all(s.thread is None or not s.thread.is_alive() for s in self._slots)
