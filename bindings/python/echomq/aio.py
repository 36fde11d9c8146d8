"""asyncio for echomq: the same calls as the blocking API, awaited.

Every call runs the blocking call of the compiled module in a thread (the
module releases the GIL while it waits on the network), so the event loop
never blocks.  A claim that waits for work (``claim(wait=...)``) waits on
the server like :meth:`echomq.Queue.claim`, on a connection of its own;
cancelling the awaiting task interrupts that wait at once
(``echomq_client_cancel``) and claims nothing: a job the claim script had
already leased when the cancel came is given back to its lane unstarted.

:class:`Worker` runs async handlers on the C worker engine (the same engine
as :class:`echomq.Worker`): ``concurrency`` tasks take jobs from it, await
the handler and report the result; a stop (or cancelling ``run()``) is a
graceful drain.

Example::

    import asyncio, echomq.aio

    async def main():
        client = await echomq.aio.connect("valkey://localhost:6379")
        q = client.queue("mail")
        await q.enqueue("tenant-7", b"hello", key="msg-1")
        job = await q.claim(wait=5)
        if job is not None:
            await job.ack()
        await client.close()
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import functools
import inspect
import logging
from typing import (Any, AsyncIterator, Awaitable, Callable, Dict, Iterable, List, Optional, Set, Tuple, TypeVar,
                    Union)

from . import _convert, _echomq
from .client import Client
from .errors import CanceledError
from .info import Event, LaneInfo, QueueStats
from .job import FailOutcome, Job
from .lifecycle import JobHalted, LifecycleSettings
from .queue import JobId, Queue
from .schedules import AsyncSchedules
from .worker import Worker as _ThreadWorker
from .worker import WorkerStats
from . import tasks as _tasks

log = logging.getLogger("echomq.aio")

T = TypeVar("T")

__all__ = ["connect", "AsyncClient", "AsyncQueue", "AsyncJob", "Worker"]


async def _call(fn: Callable[..., T], *args: Any, **kw: Any) -> T:
    """Runs a blocking call in the loop's default executor, in a copy of the
    caller's context (as asyncio.to_thread does): an enqueue from a traced
    handler is that handler's child span."""
    ctx = contextvars.copy_context()
    return await asyncio.get_running_loop().run_in_executor(None, functools.partial(ctx.run, fn, *args, **kw))


async def connect(url: str, **options: Any) -> "AsyncClient":
    """Connect to a server (options as :class:`echomq.Client`)."""
    client = Client(**options)
    await _call(client.connect, url)
    return AsyncClient(client)


class AsyncClient:
    """An asyncio client over one :class:`echomq.Client` for ordinary calls
    (they are short: bounded by the command timeout), plus connections of
    its own for claims that wait, so a waiting claim never holds up the
    others."""

    def __init__(self, client: Client) -> None:
        self._client = client
        self._spare: List[Client] = []  # connections for waiting claims, reused

    @property
    def client(self) -> Client:
        """The blocking client underneath."""
        return self._client

    def queue(self, name: str, *, lease: Optional[_convert.Seconds] = None) -> "AsyncQueue":
        """A queue on this client (no I/O)."""
        return AsyncQueue(self, self._client.queue(name, lease=lease))

    async def ping(self) -> None:
        await _call(self._client.ping)

    async def create_sharded(
        self, name: str, shards: int, *, lease: Optional[_convert.Seconds] = None
    ) -> "AsyncQueue":
        """Create or open a sharded queue (see :meth:`echomq.Client.create_sharded`)."""
        q = await _call(self._client.create_sharded, name, shards, lease=lease)
        return AsyncQueue(self, q)

    async def queues(self) -> List[str]:
        """The queues on the server (see :meth:`echomq.Client.queues`)."""
        return await _call(self._client.queues)

    async def _borrow(self) -> Client:
        if self._spare:
            return self._spare.pop()
        return await _call(self._client.clone)

    def _give_back(self, c: Client) -> None:
        if len(self._spare) < 8 and c.connected:
            self._spare.append(c)
        else:
            c.close()

    async def close(self) -> None:
        spare, self._spare = self._spare, []
        for c in spare:
            await _call(c.close)
        await _call(self._client.close)

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class AsyncJob:
    """A claimed job: the fields of :class:`echomq.Job` and awaitable
    settlement calls."""

    def __init__(self, job: Job) -> None:
        self._job = job

    @property
    def job(self) -> Job:
        """The blocking job underneath."""
        return self._job

    def __getattr__(self, name: str) -> Any:  # id, group, payload, token, attempt, ...
        return getattr(self._job, name)

    async def ack(self) -> None:
        await _call(self._job.ack)

    async def flow(self) -> Any:
        """As :meth:`echomq.Job.flow`: its parent and children's outcomes."""
        return await _call(self._job.flow)

    async def child_results(self) -> List[bytes]:
        """As :meth:`echomq.Job.child_results`."""
        return await _call(self._job.child_results)

    async def fail(self, reason: object = "", retry_in: Optional[_convert.Seconds] = None) -> FailOutcome:
        return await _call(self._job.fail, reason, retry_in)

    async def ack_result(self, result: _convert.Payload) -> None:
        await _call(self._job.ack_result, result)

    async def report_progress(self, value: _convert.Payload) -> None:
        await _call(self._job.report_progress, value)

    async def extend(self, lease: Optional[_convert.Seconds] = None) -> Any:
        return await _call(self._job.extend, lease)

    async def release(self) -> None:
        """Give the job back to its lane unstarted (the attempt not counted)."""
        await _call(self._job.release)

    async def ack_and_claim(self, lease: Optional[_convert.Seconds] = None) -> Optional["AsyncJob"]:
        job = await _call(self._job.ack_and_claim, lease)
        return None if job is None else AsyncJob(job)

    def __repr__(self) -> str:
        return f"AsyncJob({self._job!r})"


class AsyncQueue:
    """The calls of :class:`echomq.Queue`, awaited: every public member of
    Queue is here, with the same name and arguments.  The two properties of
    Queue that ask the server (``cost_quantum``, ``wait_window``) are
    coroutine methods here (a property cannot be awaited); calls that hand
    out jobs give :class:`AsyncJob` objects, and ``lanes`` and ``events``
    are async iterators."""

    def __init__(self, client: AsyncClient, queue: Queue) -> None:
        self._aclient = client
        self._queue = queue

    @property
    def name(self) -> str:
        return self._queue.name

    @property
    def sync(self) -> Queue:
        """The blocking queue underneath."""
        return self._queue

    @property
    def schedules(self) -> AsyncSchedules:
        """The queue's schedules, awaited (:mod:`echomq.schedules`)."""
        return AsyncSchedules(self._queue.schedules)

    @property
    def client(self) -> AsyncClient:
        """The client this queue talks through."""
        return self._aclient

    @property
    def lease(self) -> float:
        """Default lease of claims, in seconds."""
        return self._queue.lease

    # -- claims and settlement (Queue documents each) ---------------------------

    async def wclaim(self, lease: Optional[_convert.Seconds] = None, max: Optional[int] = None) -> List[AsyncJob]:
        return [AsyncJob(j) for j in await _call(self._queue.wclaim, lease, max)]

    async def claim_batch(
        self, n: int, lease: Optional[_convert.Seconds] = None, *, weighted: bool = False
    ) -> List[AsyncJob]:
        return [AsyncJob(j) for j in await _call(self._queue.claim_batch, n, lease, weighted=weighted)]

    async def ack_many(self, jobs: Iterable[Union[Job, AsyncJob]]) -> List[Job]:
        return await _call(self._queue.ack_many, [_sync_job(j) for j in jobs])

    # -- lane control (Queue documents each) ------------------------------------

    async def weight(self, group: str, w: Optional[int]) -> None:
        await _call(self._queue.weight, group, w)

    async def limit(self, group: str, n: Optional[int]) -> None:
        await _call(self._queue.limit, group, n)

    # -- the lifecycle (echomq.lifecycle; Queue documents each) ------------

    async def cancel(self, job_id: int, reason: Optional[str] = None, *, remove: bool = False) -> str:
        return await _call(self._queue.cancel, job_id, reason, remove=remove)

    async def limit_burst(self, group: str, limit: int, burst: Optional[int]) -> None:
        await _call(self._queue.limit_burst, group, limit, burst)

    async def default_timeout(self, seconds: Optional[_convert.Seconds]) -> None:
        await _call(self._queue.default_timeout, seconds)

    async def queue_limit(self, n: Optional[int]) -> None:
        await _call(self._queue.queue_limit, n)

    async def queue_rate(self, jobs: Optional[int], per: _convert.Seconds = 1.0, *, burst: Optional[int] = None) -> None:
        await _call(self._queue.queue_rate, jobs, per, burst=burst)

    async def lifecycle(self) -> LifecycleSettings:
        return await _call(self._queue.lifecycle)

    async def rate(
        self, group: str, jobs: Optional[int], per: _convert.Seconds = 1.0, *, burst: Optional[int] = None
    ) -> None:
        await _call(self._queue.rate, group, jobs, per, burst=burst)

    async def cap(self, group: str, n: Optional[int]) -> None:
        await _call(self._queue.cap, group, n)

    async def pause(self, group: str) -> None:
        await _call(self._queue.pause, group)

    async def resume(self, group: str) -> None:
        await _call(self._queue.resume, group)

    async def throttle(self, group: str, seconds: _convert.Seconds) -> None:
        await _call(self._queue.throttle, group, seconds)

    async def charge(self, group: str, units: int) -> None:
        await _call(self._queue.charge, group, units)

    async def defaults(self, **settings: Any) -> None:
        """As :meth:`echomq.Queue.defaults` (``weight``, ``limit``,
        ``max_attempts``, ``rate``, ``cap``)."""
        await _call(self._queue.defaults, **settings)

    async def cost_mode(self, quantum: Optional[int]) -> None:
        await _call(self._queue.cost_mode, quantum)

    async def cost_quantum(self) -> int:
        """Queue.cost_quantum (a property there: it asks the server)."""
        return await _call(lambda: self._queue.cost_quantum)

    async def wait_figures(self, window: Optional[int]) -> None:
        await _call(self._queue.wait_figures, window)

    async def wait_window(self) -> Optional[int]:
        """Queue.wait_window (a property there: it asks the server)."""
        return await _call(lambda: self._queue.wait_window)

    # -- inspection and repair (Queue documents each) ------------------------

    async def lanes(self, *, after: Optional[str] = None, page_size: int = 1000) -> AsyncIterator[LaneInfo]:
        """Queue.lanes as an async iterator: one round trip per page."""
        pages = self._queue.lanes(after=after, page_size=page_size)
        done = object()
        while True:
            lane = await _call(next, pages, done)
            if lane is done:
                return
            yield lane

    async def redrive(self, jobs: Optional[Iterable[Union[int, Job, AsyncJob]]] = None) -> int:
        ids = None if jobs is None else [_sync_job(j) for j in jobs]
        return await _call(self._queue.redrive, ids)

    async def repair(self, apply: bool = False, step: int = 1000) -> List[str]:
        return await _call(self._queue.repair, apply, step)

    async def doctor(self, acl_user: Optional[str] = None) -> List[str]:
        return await _call(self._queue.doctor, acl_user)

    async def enqueue(self, group: str, payload: _convert.Payload, **options: Any) -> JobId:
        """As :meth:`echomq.Queue.enqueue` (``delay``, ``max_attempts``,
        ``key``, ``dedup_window``)."""
        return await _call(self._queue.enqueue, group, payload, **options)

    async def enqueue_many(self, jobs: Iterable[Any], **options: Any) -> List[JobId]:
        return await _call(self._queue.enqueue_many, list(jobs), **options)

    async def claim(
        self, lease: Optional[_convert.Seconds] = None, *, wait: Optional[_convert.Seconds] = None
    ) -> Optional[AsyncJob]:
        """Claim the next job, or ``None``.  With ``wait``, wait on the server
        up to that many seconds; cancelling the task interrupts the wait and
        claims nothing."""
        if not wait:
            job = await _call(self._queue.claim, lease)
            return None if job is None else AsyncJob(job)
        c = await self._aclient._borrow()
        q = c.queue(self._queue.name)
        loop = asyncio.get_running_loop()
        fut = loop.run_in_executor(None, functools.partial(q.claim, lease, wait=wait))
        try:
            job = await asyncio.shield(fut)
        except asyncio.CancelledError:
            await self._interrupt(c, fut)
            raise
        except BaseException:
            self._aclient._give_back(c)
            raise
        self._aclient._give_back(c)
        if job is None:
            return None
        job._queue = self._queue  # settled through the ordinary client (the borrowed one is reused)
        return AsyncJob(job)

    async def _interrupt(self, c: Client, fut: "asyncio.Future[Optional[Job]]") -> None:
        # A cancel that comes before the thread has entered the wait does
        # nothing: repeat it until the call returns.
        while not fut.done():
            c.cancel()
            await asyncio.wait({fut}, timeout=0.02)
        try:
            job = fut.result()
        except CanceledError:
            job = None
        except Exception:  # the claim failed anyway: nothing was claimed
            job = None
        if job is not None:  # leased just before the cancel: give it back unstarted
            try:
                await _call(job.release)
            except Exception:
                log.warning("job %d claimed by a cancelled claim comes back when its lease expires", job.id)
        self._aclient._give_back(c)

    async def job(self, id: int) -> Optional[Job]:
        return await _call(self._queue.job, id)

    async def enqueue_flow(self, flow: Any, **options: Any) -> Any:
        """As :meth:`echomq.Queue.enqueue_flow` (a Flow, chain, group or chord)."""
        return await _call(self._queue.enqueue_flow, flow, **options)

    async def flow_info(self, job: Union[int, Job, AsyncJob]) -> Any:
        return await _call(self._queue.flow_info, job.job if isinstance(job, AsyncJob) else job)

    async def delete_flow(self, job: Union[int, Job, AsyncJob]) -> int:
        return await _call(self._queue.delete_flow, job.job if isinstance(job, AsyncJob) else job)

    async def delete(self, job: Union[int, Job, AsyncJob]) -> None:
        await _call(self._queue.delete, _sync_job(job))

    async def purge(self, group: str, **options: Any) -> int:
        return await _call(self._queue.purge, group, **options)

    async def stats(self) -> QueueStats:
        return await _call(self._queue.stats)

    async def lane(self, group: str) -> LaneInfo:
        return await _call(self._queue.lane, group)

    async def dead(self, offset: int = 0, count: int = 100) -> List[Job]:
        return await _call(self._queue.dead, offset, count)

    async def shards(self) -> List[str]:
        """The shard queues ([] for a plain queue)."""
        return await _call(self._queue.shards)

    async def verify(self) -> List[str]:
        return await _call(self._queue.verify)

    # -- outcomes (Queue documents each) -------------------------------------

    async def retain(self, keep: Optional[_convert.Seconds] = None, last: Optional[int] = None) -> None:
        await _call(self._queue.retain, keep, last)

    async def clear_retention(self) -> None:
        await _call(self._queue.clear_retention)

    async def set_events(self, max_len: int, *, enqueued: bool = False) -> None:
        await _call(self._queue.set_events, max_len, enqueued=enqueued)

    async def clear_events(self) -> None:
        await _call(self._queue.clear_events)

    async def _blocking(self, fn: Callable[[Queue], T]) -> T:
        """Runs fn on a borrowed client's queue in a thread; cancelling the
        task interrupts its wait on the server (Client.cancel)."""
        c = await self._aclient._borrow()
        q = c.queue(self._queue.name)
        fut = asyncio.get_running_loop().run_in_executor(None, fn, q)
        try:
            out = await asyncio.shield(fut)
        except asyncio.CancelledError:
            while not fut.done():  # a cancel before the wait began does nothing: repeat
                c.cancel()
                await asyncio.wait({fut}, timeout=0.02)
            self._aclient._give_back(c)
            raise
        except BaseException:
            self._aclient._give_back(c)
            raise
        self._aclient._give_back(c)
        return out

    async def wait(self, job: Union[int, Job, AsyncJob], timeout: Optional[_convert.Seconds] = None) -> Job:
        """Queue.wait, awaitable: cancelling the task interrupts the wait."""
        target = _sync_job(job)
        found = await self._blocking(lambda q: q.wait(target, timeout))
        found._queue = self._queue  # found on a borrowed client
        return found

    async def events(
        self, after: str = "0", *, follow: bool = False, block: _convert.Seconds = 5.0, count: int = 1000
    ) -> AsyncIterator[Event]:
        """Queue.events as an async iterator; with ``follow`` it waits on
        the server for more (cancelling the task interrupts the wait)."""
        block_ms = _convert.to_ms("block", block, maximum=_echomq.WAIT_MAX_MS)
        while True:
            cursor = after
            entries = await self._blocking(
                lambda q: q.client._raw.events_read(q.name, cursor, count, block_ms if follow else 0))
            for e in entries:
                after = e[0]
                yield Event._from_raw(e)
            if not entries and not follow:
                return


AsyncHandler = Callable[[Job], Awaitable[Any]]


class Worker(_ThreadWorker):
    """Runs an async ``handler(job)`` over a queue on the C worker engine.

    Takes the options of :class:`echomq.Worker` (``concurrency`` is the
    number of handlers running at once).  It is the thread Worker with its
    handlers run on the event loop: ``concurrency`` threads take jobs from
    the engine (waiting in C with the GIL released) and hand each to the
    loop, so the host loop is written once.  :meth:`stop` (or cancelling the
    task that awaits :meth:`run`) drains: nothing new is handed out,
    prefetched jobs go back to their lanes, running handlers finish for up
    to ``drain_timeout``; handlers still running then are cancelled (their
    jobs come back by their leases).  A handler whose job is canceled
    (``Queue.cancel``) or runs out of its time limit is cancelled too: its
    task gets ``asyncio.CancelledError`` at its next await, and the engine
    settles the job as canceled, or fails the attempt "timed out".
    """

    def __init__(self, queue: Union[AsyncQueue, Queue], handler: AsyncHandler, **options: Any) -> None:
        sync = queue.sync if isinstance(queue, AsyncQueue) else queue
        super().__init__(sync, handler, **options)
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._running: Set["concurrent.futures.Future[Any]"] = set()
        self._futures: Dict[Tuple[int, int], "concurrent.futures.Future[Any]"] = {}  # (id, token) -> handler

    async def run(self) -> WorkerStats:  # type: ignore[override]
        """Run until stopped (or idle, with ``idle_timeout``); returns the stats."""
        self._loop = asyncio.get_running_loop()
        # The start is shielded too: a cancel while the engine starts waits
        # for the start to end, then drains (the engine would run on).
        started = asyncio.ensure_future(_call(self.start))
        try:
            await asyncio.shield(started)
            await asyncio.shield(_call(self._finished.wait))
        except asyncio.CancelledError:
            await asyncio.wait([started])
            if started.exception() is None:
                self.stop()
                await _call(self._finished.wait)  # the drain
            raise
        return self.stats

    def _run_handler(self, job: Job) -> Any:
        """On a host thread: runs the handler on the loop and waits for it."""
        assert self._loop is not None
        fut = asyncio.run_coroutine_threadsafe(self._call_handler(job), self._loop)
        with self._lock:
            self._running.add(fut)
            self._futures[(job.id, job.token)] = fut
        if job.halt_reason:  # halted before it was handed out
            fut.cancel()
        try:
            return fut.result()
        except concurrent.futures.CancelledError:  # halted, or cut off by a drain that timed out
            if job.halt_reason:
                raise JobHalted(job.id, job.halt_reason) from None
            raise RuntimeError("the handler was cancelled: the drain timed out") from None
        finally:
            with self._lock:
                self._running.discard(fut)
                self._futures.pop((job.id, job.token), None)

    def _halt_handler(self, job: Job) -> None:
        with self._lock:
            fut = self._futures.get((job.id, job.token))
        if fut is not None:
            fut.cancel()

    async def _call_handler(self, job: Job) -> Any:
        result = self._handler(job)
        if inspect.isawaitable(result):
            result = await result
        return result

    def _drain_timed_out(self) -> None:
        with self._lock:
            running = list(self._running)
        for fut in running:
            fut.cancel()


def _sync_job(job: Any) -> Any:
    """The blocking Job of an AsyncJob; anything else as it is."""
    return job.job if isinstance(job, AsyncJob) else job


def __dir__() -> List[str]:
    return sorted(__all__)


class TaskResult(_tasks.TaskResult):
    """:class:`echomq.TaskResult` whose :meth:`wait` is awaitable
    (cancelling the task interrupts the wait)."""

    async def wait(self, timeout: Optional[_convert.Seconds] = None) -> Any:  # type: ignore[override]
        app = self.task.app
        assert isinstance(app, App)
        job = await app.aclient.queue(self.task.queue_name).wait(self.id, timeout)
        return self.task._value(job)


class Task(_tasks.Task):
    """:class:`echomq.Task` whose enqueues are awaitable."""

    async def enqueue(self, *args: Any, **kwargs: Any) -> TaskResult:  # type: ignore[override]
        lane, payload, o = self._job(args, kwargs, {})
        return TaskResult(self, int(await _call(self.queue.enqueue, lane, payload, **o)))

    async def enqueue_in(self, delay: _convert.Seconds, *args: Any, **kwargs: Any) -> TaskResult:  # type: ignore[override]
        lane, payload, o = self._job(args, kwargs, {"delay": delay})
        return TaskResult(self, int(await _call(self.queue.enqueue, lane, payload, **o)))

    async def enqueue_at(self, when: Any, *args: Any, **kwargs: Any) -> TaskResult:  # type: ignore[override]
        lane, payload, o = self._job(args, kwargs, {"at": when})
        return TaskResult(self, int(await _call(self.queue.enqueue, lane, payload, **o)))


class App(_tasks.BaseApp):
    """:class:`echomq.App` under asyncio: ``await task.enqueue(...)``,
    ``await result.wait()``, and :meth:`worker` runs ``async def`` tasks on
    the event loop (a plain function runs there too: keep it short).  The
    client connects when the App is made (a URL) or is given connected."""

    _task_class = Task

    def __init__(self, client: Any, **options: Any) -> None:
        super().__init__(client, **options)
        self.aclient = AsyncClient(self.client)

    def worker(self, queue: Optional[str] = None, **options: Any) -> Worker:
        """An :class:`echomq.aio.Worker` running each job's task by name
        (options as :meth:`echomq.App.worker`)."""
        return Worker(self.client.queue(self._queues(queue)), self._handle, **options)

    async def _handle(self, job: Job) -> Optional[bytes]:
        t, args, kwargs = self._task_of(job)
        value = t.fn(*args, **kwargs)
        if inspect.isawaitable(value):
            value = await value
        return self._result_of(value)
