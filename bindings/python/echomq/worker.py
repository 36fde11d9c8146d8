"""A worker that runs a handler over a queue: a thin layer over libechomq's
worker engine (``echomq_worker_*``).

The engine, in C, does the work of a worker loop once for every language:
it claims jobs in batches fused with the settlement of finished ones (one
round trip per batch), extends the leases of running jobs, sleeps on the
server when the queue is empty and gives prefetched, unstarted jobs back to
their lanes when it stops.  This module only runs ``concurrency`` threads
that take a job from the engine, call the handler and report the result;
every call into the engine releases the GIL.

Stopping (``stop()``, SIGINT or SIGTERM under :meth:`Worker.run`) is a
drain: nothing new is handed out, prefetched jobs go back to their lanes at
once, and running handlers finish and have their jobs settled, for up to
``drain_timeout``.  A second signal (or ``stop(abandon=True)``) stops
waiting: jobs still running come back to their lanes when their leases
expire (delivery is at-least-once, so nothing is lost).
"""

from __future__ import annotations

import json
import logging
import signal
import threading
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from . import _convert, _echomq, _trace
from .errors import EchoMQError, InvalidArgument, StaleLeaseError, error_class
from .job import Job
from .queue import Queue

log = logging.getLogger("echomq.worker")

Handler = Callable[[Job], Any]
"""A handler takes the claimed :class:`~echomq.Job`; returning completes the
job (the value is its result), an exception fails the attempt and
:class:`DiscardJob` dead-letters it."""

ErrorHook = Callable[[EchoMQError], Any]
"""Called with errors that do not stop the worker (see ``on_error``)."""

JobHook = Callable[[Job, Any], Any]
"""A job hook: ``hook(job, result)`` for a completed job (the handler's
return value, as returned), ``hook(job, exc)`` for a failed or dead one."""

_STOPPING = object()  # the engine is stopping: nothing more comes (Worker._take)

DEFAULT_CONCURRENCY: int = _echomq.WORKER_HANDLERS_DEFAULT
"""Handler threads of a Worker by default (the engine's default, also the Go
Worker's)."""
DEFAULT_DRAIN_TIMEOUT: float = _echomq.WORKER_DRAIN_MS_DEFAULT / 1000.0
"""Seconds a graceful stop waits for running handlers by default (the
engine's default, also the Go Worker's)."""

_ERROR_POLL = 0.1
"""Seconds between two looks at the engine's error count (on_error)."""

Serializer = Callable[[Any], Union[bytes, str]]
"""Turns a handler's return value into the job's result (see ``serializer``)."""


def json_result(value: Any) -> bytes:
    """The default :data:`Serializer`: compact JSON, UTF-8."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


class DiscardJob(Exception):
    """Raise from a handler when the job can never succeed: it is
    dead-lettered now, whatever attempts it has left (no retry).  The
    exception text is the reason kept with the dead job.

    Example::

        def handler(job):
            if not job.payload:
                raise echomq.DiscardJob("empty payload")
    """


NoRetry = DiscardJob
"""The "don't retry" failure: another name of :class:`DiscardJob` (one class,
so ``except DiscardJob`` catches it too)."""


@dataclass
class WorkerStats:
    """What a worker did: the engine's counters plus the handlers' outcomes.

    Attributes:
        acked: jobs the handler finished and that were acknowledged.
        failed: handler exceptions (each failed one attempt; includes
            discards).
        retried: failed attempts that were re-queued, at once or after a
            delay (``delayed`` counts the latter).
        dead: failed attempts that dead-lettered their job (out of attempts,
            or discarded).
        lost: leases lost before the job could be settled (the job was, or
            will be, delivered again).
        errors: failed server calls of the engine (retried after a backoff).
        discarded: handlers that raised :class:`DiscardJob`.
        claimed: jobs the engine claimed.
        released: prefetched jobs given back to their lanes unstarted.
        extended: lease extensions.
        delayed: failed attempts waiting in the delayed set for their retry.
        round_trips: calls to the server (idle waits excluded).
        running: jobs handed to a handler, not reported yet.
        buffered: jobs claimed ahead, not handed out yet.
        unconfirmed: round trips done but not confirmed durable in time
            (the client's ``wait_replicas`` / ``wait_aof``); counted as done.
        canceled: jobs that settled as canceled (``Queue.cancel``).
        timed_out: attempts that ran out of their time limit.
    """

    acked: int = 0
    failed: int = 0
    retried: int = 0
    dead: int = 0
    lost: int = 0
    errors: int = 0
    discarded: int = 0
    claimed: int = 0
    released: int = 0
    extended: int = 0
    delayed: int = 0
    round_trips: int = 0
    running: int = 0
    buffered: int = 0
    unconfirmed: int = 0
    canceled: int = 0
    timed_out: int = 0


class Worker:
    """Runs ``handler(job)`` over ``queue`` with ``concurrency`` threads on
    one worker engine.

    Args:
        queue: the queue to drain; its client gives the URL and timeouts of
            the engine's own two or three connections (the queue's client
            itself is not used).
        handler: called with each :class:`~echomq.Job`; returning completes
            it (the value is its result, see ``serializer``), raising fails
            the attempt with the exception text, raising
            :class:`DiscardJob` dead-letters the job now.
        concurrency: handler threads (default 4, the engine's
            ``ECHOMQ_WORKER_HANDLERS_DEFAULT``).
        prefetch: jobs claimed ahead of the handlers, so the next job is
            ready when a handler finishes (default: ``concurrency``;
            ``0`` = none).  Prefetched jobs count against their lane's limit
            like any lease and go back to their lanes at once on stop.
        slots: jobs held at once, running or prefetched (default
            ``concurrency + prefetch``; at least ``concurrency``).
        weighted: serve weighted turns (each lane gets min(weight, depth,
            limit headroom) jobs per turn, as :meth:`Queue.wclaim`).
        lease: lease per job in seconds (default: the queue's); the engine
            extends the leases of running jobs past half of it.
        retry_in: retry delay after a failure: ``None`` = exponential backoff
            (1 s, 2 s, 4 s, ... at most 1 h; the default), ``0`` = straight
            back to the lane, or seconds.
        idle_timeout: if set, the engine stops by itself (a drain with
            nothing running) once it has held no job for that many seconds:
            a "burst" run that drains the queue and returns.
        drain_timeout: seconds a graceful stop waits for running handlers
            (default 30); after it their jobs come back by their leases.
        on_error: called with each error that does not stop the worker: a
            failed server call of the engine (it retries by itself), or a
            lease lost while the handler ran (:class:`StaleLeaseError`).
            Called from the worker's threads; exceptions it raises are
            logged and ignored.
        wait: longest server-side wait of an idle round in seconds (default
            5); the engine wakes at once when work arrives either way.
        serializer: turns a handler's return value into the job's result:
            ``bytes`` and ``str`` (UTF-8) are kept as they are, ``None`` is
            no result, and anything else goes through the serializer
            (default :func:`json_result`: compact JSON), which returns bytes
            or str.  A value it cannot encode (it raises), or a result over
            ``echomq.RESULT_MAX`` bytes, still completes the job: the
            result is dropped, the reason kept with the job's outcome
            (``Job.result_dropped``) and logged as an error.  A handler that
            returned is never run again because of its result.
        on_completed: ``hook(job, result)`` after a handler returned and
            its job was reported done.
        on_failed: ``hook(job, exc)`` after a handler raised and its job
            was reported failed (every failed attempt, also the last).
        on_dead: ``hook(job, exc)`` after a failure that dead-letters the
            job (:class:`NoRetry`, or its last attempt, as the engine
            says); called after ``on_failed``.  The hooks run on the
            handler's thread once the job is reported to the engine, which
            settles it with its next round trip; a job whose lease was lost
            meanwhile gets no hook (``on_error`` hears of it).  Exceptions
            they raise are logged and ignored.
        target_wait: latency-bounded prefetch, in seconds (default
            0.005): the engine measures the handlers' time and claims so
            that the jobs it holds unstarted are about this much handler
            work, within ``slots``.  A job of a quiet lane then starts
            within about this wait even behind a deep backlog, while fast
            handlers still get deep batches.  ``0`` = fixed prefetch: every
            claim fills the free slots (as ``weighted`` workers always do:
            only full batches keep whole turns).
        fused: ignored (the engine always settles and claims in one round
            trip); kept for compatibility.

    Logging, on the ``echomq.worker`` logger: a failed attempt that will be
    retried at INFO, one that dead-letters its job (or a discard) at
    WARNING, a dropped result at ERROR, the traceback of a failure at DEBUG.

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
        concurrency: int = DEFAULT_CONCURRENCY,
        prefetch: Optional[int] = None,
        slots: Optional[int] = None,
        weighted: bool = False,
        lease: Optional[_convert.Seconds] = None,
        retry_in: Optional[_convert.Seconds] = None,
        idle_timeout: Optional[_convert.Seconds] = None,
        drain_timeout: _convert.Seconds = DEFAULT_DRAIN_TIMEOUT,
        on_error: Optional[ErrorHook] = None,
        wait: Optional[_convert.Seconds] = None,
        fused: bool = True,
        target_wait: Optional[_convert.Seconds] = None,
        on_completed: Optional[JobHook] = None,
        on_failed: Optional[JobHook] = None,
        on_dead: Optional[JobHook] = None,
        serializer: Serializer = json_result,
    ) -> None:
        if not isinstance(queue, Queue):
            raise TypeError(f"queue must be an echomq.Queue, not {type(queue).__name__}")
        for name, fn in (("handler", handler), ("serializer", serializer)):
            if not callable(fn):
                raise TypeError(f"{name} must be callable")
        for name, hook in (("on_error", on_error), ("on_completed", on_completed), ("on_failed", on_failed),
                           ("on_dead", on_dead)):
            if hook is not None and not callable(hook):
                raise TypeError(f"{name} must be callable")
        self._hooks = {"completed": on_completed, "failed": on_failed, "dead": on_dead}
        client = queue.client
        if client.url is None:
            raise InvalidArgument("the queue's client has never connected: the Worker takes its URL")
        self._queue = queue
        self._handler = handler
        self._serializer = serializer
        self._on_error = on_error
        self._concurrency = _convert.to_count("concurrency", concurrency, maximum=1024)
        del fused  # the engine always fuses settlement with the next claim
        self._drain_ms = _convert.to_ms("drain_timeout", drain_timeout, minimum=0)
        # What the engine is told; the rest of its options keep their
        # defaults (WORKER_DEFAULTS). The policy is the engine's: it says
        # what became of each job, and stops by itself on its idle timeout.
        opts: Dict[str, int] = dict(
            slots=self._slots(prefetch, slots),
            lease_ms=queue._lease_ms(lease),
            weighted=int(bool(weighted)),
            report_outcomes=1,
            connect_timeout_ms=_convert.to_ms("connect_timeout", client._connect_timeout, maximum=_convert.I32_MAX),
            command_timeout_ms=_convert.to_ms("timeout", client._timeout, maximum=_convert.I32_MAX),
            wait_replicas=client._wait_replicas,
            wait_aof=int(client._wait_aof),
            wait_timeout_ms=_convert.to_ms("wait_timeout", client._wait_timeout, maximum=_convert.I32_MAX),
        )
        if retry_in is not None:
            opts["retry_delay_ms"] = _convert.to_ms("retry_in", retry_in, minimum=0, maximum=_echomq.DELAY_MAX_MS)
        if wait is not None:
            opts["idle_wait_ms"] = _convert.to_ms("wait", wait, maximum=_echomq.WAIT_MAX_MS)
        if target_wait is not None:
            opts["target_wait_ms"] = _convert.to_ms("target_wait", target_wait, minimum=0,
                                                    maximum=_echomq.TARGET_WAIT_MAX_MS)
        if idle_timeout is not None:
            opts["idle_timeout_ms"] = _convert.to_ms("idle_timeout", idle_timeout, maximum=_echomq.WAIT_MAX_MS)
        # Creating the engine checks the URL, queue name and every option; no I/O.
        self._raw = _echomq.Worker(client.url, queue.name, opts)
        self._options = {**_echomq.WORKER_DEFAULTS, **opts}
        self._lock = threading.Lock()
        self._failed = 0
        self._discarded = 0
        self._hosts = 0  # host threads (or tasks) still taking jobs
        self._errors_seen = 0
        self._stop = threading.Event()
        self._abandon = threading.Event()
        self._finished = threading.Event()  # the engine has stopped
        self._clean = False  # no job was left running by the stop
        self._threads: List[threading.Thread] = []
        self._control: Optional[threading.Thread] = None
        self._halts: Optional[threading.Thread] = None
        self._handed: Dict[Tuple[int, int], Job] = {}  # (id, token) -> a job its handler runs
        self._started = False

    def _slots(self, prefetch: Optional[int], slots: Optional[int]) -> int:
        pre = self._concurrency if prefetch is None else _convert.to_count("prefetch", prefetch, minimum=0)
        if slots is None:
            n_slots = self._concurrency + pre
        else:
            n_slots = _convert.to_count("slots", slots, maximum=_echomq.BATCH_MAX)
            if n_slots < self._concurrency:
                raise InvalidArgument(f"slots ({n_slots}) must be at least concurrency ({self._concurrency})")
        if n_slots > _echomq.BATCH_MAX:
            raise InvalidArgument(f"concurrency + prefetch must be at most {_echomq.BATCH_MAX}, got {n_slots}")
        return n_slots

    # -- public control ----------------------------------------------------

    @property
    def options(self) -> Dict[str, Any]:
        """The engine options this worker runs with, by the C field names
        of ``echomq_worker_options`` (slots; prefetch per round trip, 0 =
        all free slots; lease_ms; retry_delay_ms, -1 = exponential backoff;
        idle_wait_ms; target_wait_ms, 0 = fixed prefetch; idle_timeout_ms, 0
        = never; ...)."""
        return dict(self._options)

    @property
    def stats(self) -> WorkerStats:
        """The counters so far (final once the worker has stopped)."""
        e = self._raw.stats()
        with self._lock:
            failed, discarded = self._failed, self._discarded
        return WorkerStats(
            acked=e["done"], failed=failed, retried=e["retried"] + e["delayed"], dead=e["dead"],
            lost=e["lost"], errors=e["errors"], discarded=discarded, claimed=e["claimed"],
            released=e["released"], extended=e["extended"], delayed=e["delayed"],
            round_trips=e["round_trips"], running=e["running"], buffered=e["buffered"],
            unconfirmed=e["unconfirmed"], canceled=e["canceled"], timed_out=e["timed_out"],
        )

    @property
    def stopping(self) -> bool:
        """True once a stop was requested (or the engine stopped by itself)."""
        return self._stop.is_set()

    def start(self) -> None:
        """Connect the engine and start the handler threads; returns at once.
        Stop with :meth:`stop`.  Connection errors are raised here."""
        self._start_engine()
        for i in range(self._concurrency):
            t = threading.Thread(target=self._host_main, name=f"echomq-worker-{i}", daemon=True)
            self._threads.append(t)
            t.start()

    def _start_engine(self) -> None:
        """Connects the engine and starts the control thread (stop requests,
        engine errors, the drain)."""
        if self._started:
            raise RuntimeError("a Worker runs once")
        self._started = True
        try:
            self._raw.start()
        except BaseException:
            self._stop.set()
            self._finished.set()  # join() returns False at once: nothing ran
            raise
        self._hosts = self._concurrency
        self._control = threading.Thread(target=self._control_main, name="echomq-worker-control", daemon=True)
        self._control.start()
        self._halts = threading.Thread(target=self._halts_main, name="echomq-worker-halts", daemon=True)
        self._halts.start()

    def stop(self, *, abandon: bool = False) -> None:
        """Ask the worker to stop.  Graceful by default: hand out nothing new,
        give prefetched jobs back to their lanes at once and let running
        handlers finish (up to ``drain_timeout``); returns at once, see
        :meth:`join`.  ``abandon=True`` stops without waiting for running
        handlers (their jobs come back when their leases expire); it returns
        once the engine has stopped.  Safe from any thread or a signal
        handler."""
        self._stop.set()
        if abandon and self._started and not self._abandon.is_set():
            self._abandon.set()
            self._raw.stop(_echomq.STOP_ABANDON, 0)

    def join(self, timeout: Optional[float] = None) -> bool:
        """Wait for the worker to stop.  True when it stopped with every job
        settled and its threads ended; False at the timeout, or when jobs
        were left running (abandoned, or past the drain timeout)."""
        if not self._started:
            return True
        deadline = None if timeout is None else time.monotonic() + timeout
        # Short steps: the main thread must stay responsive to signals.
        while not self._finished.is_set():
            step = 0.1 if deadline is None else min(0.1, deadline - time.monotonic())
            if step <= 0:
                return False
            self._finished.wait(step)
        if not self._clean:
            return False
        for t in self._threads:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            t.join(left)
            if t.is_alive():
                return False
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
            self.stop(abandon=True)
        else:
            log.info("signal %d: stopping after the running jobs", signum)
            self.stop()

    def _report_error(self, err: EchoMQError) -> None:
        log.warning("%s", err)
        if self._on_error is None:
            return
        try:
            self._on_error(err)
        except Exception:  # the hook's failure must not stop the worker
            log.exception("on_error hook raised")

    def _poll_errors(self) -> None:
        """Hands new engine errors to the hook (the engine keeps the last one)."""
        n = self._raw.stats()["errors"]
        if n > self._errors_seen:
            self._errors_seen = n
            code, message = self._raw.last_error()
            if code != 0:
                self._report_error(error_class(code)(f"worker engine: {message}", code))

    def _control_main(self) -> None:
        """Waits for a stop (asked for, or the engine's own on its idle
        timeout: the last host out sets it), passing on engine errors
        meanwhile, then drains the engine."""
        try:
            while not self._stop.wait(_ERROR_POLL):
                self._poll_errors()
            self._clean = bool(self._raw.stop(_echomq.STOP_DRAIN, self._drain_ms))
            if not self._clean and not self._abandon.is_set():
                log.warning("drain timed out: jobs still running come back when their leases expire")
                self._drain_timed_out()
            self._poll_errors()
        except EchoMQError as exc:  # a bug or allocation failure: stop anyway
            self._report_error(exc)
            self._raw.stop(_echomq.STOP_ABANDON, 0)
        finally:
            self._finished.set()

    def _halts_main(self) -> None:
        """Tells each running handler the engine halts (its job canceled, or
        out of its time limit): the job's ``cancelled`` event, and for the
        asyncio worker its task cancelled (_halt_handler). Ends with the
        engine."""
        try:
            while True:
                got = self._raw.next_halt(1000)
                if isinstance(got, str):
                    return
                if got is None:
                    continue
                jid, token, why = got
                with self._lock:
                    job = self._handed.get((jid, token))
                if job is not None:
                    job._halted(why)
                    self._halt_handler(job)
        except EchoMQError as exc:
            self._report_error(exc)

    def _halt_handler(self, job: Job) -> None:
        """Threads cannot be stopped: the handler reads ``job.cancelled``."""

    def _drain_timed_out(self) -> None:
        """Threads cannot be stopped: their handlers run on (asyncio cancels)."""

    def _host_main(self) -> None:
        """One host: take a job from the engine, run the handler, report.
        The one host loop of both workers (the asyncio one runs its
        handlers on its event loop: _run_handler)."""
        try:
            while True:
                got = self._take()
                if got is _STOPPING:
                    return
                if got is not None:
                    self._process(*got)
        finally:
            with self._lock:
                self._hosts -= 1
                last = self._hosts == 0
            if last:  # the engine stopped (also by itself): the control thread drains it
                self._stop.set()

    def _take(self) -> Any:
        """The engine's next job: (job, ref), None (nothing yet) or
        _STOPPING (the engine is stopping: nothing more comes)."""
        got = self._raw.next(1000)
        if got is None or isinstance(got, str):
            return None if got is None else _STOPPING
        tup, ref = got
        job = Job._from_raw(self._queue, tup)
        job.cancelled  # made before the handler runs: the halt thread sets it
        return job, ref

    def _run_handler(self, job: Job) -> Any:
        return self._handler(job)

    def _process(self, job: Job, ref: Any) -> None:
        """Runs the handler and reports what it did."""
        key = (job.id, job.token)
        with self._lock:
            self._handed[key] = job
        if ref.halted:  # halted before the halt thread could find it here
            job._halted(ref.halted)
        try:
            try:
                if _trace.hook is None:
                    result = self._run_handler(job)
                else:  # tracing on (echomq.otel): a CONSUMER span around the handler
                    result = _trace.hook.process(self._queue.name, job, self._run_handler)
            except BaseException as exc:  # the handler's failure is the job's, not the worker's
                self._settle(job, ref, exc, None)
                if not isinstance(exc, Exception):  # SystemExit, KeyboardInterrupt: end this thread
                    raise
                return
            self._settle(job, ref, None, result)
        finally:
            with self._lock:
                self._handed.pop(key, None)

    def _result(self, job: Job, result: Any) -> Tuple[Optional[bytes], str]:
        """The job's result as bytes (None: no result), and why it is
        dropped ("" when it is not).  A result over RESULT_MAX goes as it
        is: the engine drops it and records why (report_outcomes)."""
        if result is None:
            return None, ""
        try:
            data = result if isinstance(result, (bytes, str)) else self._serializer(result)
            if isinstance(data, str):
                data = data.encode("utf-8")
            if not isinstance(data, bytes):
                raise TypeError(f"the serializer returned {type(data).__name__}, not bytes or str")
        except Exception as exc:  # the job succeeded all the same
            why = "cannot encode the result: " + _reason(exc)
            log.error("job %d (lane %r): result dropped, the job completes without it: %s", job.id, job.group, why)
            return None, why
        if len(data) > _echomq.RESULT_MAX:
            log.error("job %d (lane %r): result dropped, the job completes without it: result of %d bytes is over "
                      "RESULT_MAX (%d)", job.id, job.group, len(data), _echomq.RESULT_MAX)
        return data, ""

    def _settle(self, job: Job, ref: Any, exc: Optional[BaseException], result: Any) -> None:
        """Reports a handler's outcome to the engine; logs and calls the
        hooks by what the engine says becomes of the job."""
        if exc is None:
            data, dropped = self._result(job, result)
            status = self._raw.done(ref, job._cost, data, dropped)
            if status == _echomq.OK:
                self._hook("completed", job, result)
            return self._after(job, status)
        discard = isinstance(exc, DiscardJob)
        reason = (str(exc) or "discarded") if discard else _reason(exc)
        with self._lock:
            self._failed += 1
            self._discarded += discard
        if discard:
            status = self._raw.discard(ref, _convert.reason_bytes(reason))
        else:
            status = self._raw.fail(ref, _convert.reason_bytes(reason), _echomq.RETRY_DEFAULT, job._cost)
        if status not in (_echomq.WILL_RETRY, _echomq.WILL_DIE):
            return self._after(job, status)
        dies = status == _echomq.WILL_DIE
        log.log(logging.WARNING if dies else logging.INFO, "job %d (lane %r, attempt %d/%d) %s, %s: %s", job.id,
                job.group, job.attempt, job.max_attempts, "discarded" if discard else "failed",
                "dead-lettered" if dies else "will be retried", reason)
        log.debug("traceback of job %d", job.id, exc_info=exc)
        if isinstance(exc, Exception):
            self._hook("failed", job, exc)
            if dies:
                self._hook("dead", job, exc)

    def _after(self, job: Job, status: int) -> None:
        """Tells of a report the engine did not take."""
        if status == _echomq.WAS_CANCELED:
            log.info("job %d (lane %r) was canceled: it settled as canceled", job.id, job.group)
        elif status == _echomq.ESTALE:
            self._report_error(StaleLeaseError(
                f"job {job.id}: lease lost while the handler ran (it is delivered again)", _echomq.ESTALE))
        elif status == _echomq.ECANCELED:
            log.warning("job %d: the worker stopped before it was reported; it comes back when "
                        "its lease expires", job.id)
        elif status < 0:
            self._report_error(error_class(status)(f"job {job.id}: report refused", status))

    def _hook(self, which: str, job: Job, arg: Any) -> None:
        hook = self._hooks[which]
        if hook is None:
            return
        try:
            hook(job, arg)
        except Exception:  # a hook's failure is not the job's
            log.exception("on_%s hook of job %d raised", which, job.id)


def _reason(exc: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(exc), exc)).strip()

