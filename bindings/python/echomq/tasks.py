"""Tasks by name: functions enqueued with their arguments and run by a
worker that dispatches on the job's name.

An :class:`App` holds the tasks of an application.  ``@app.task`` makes a
function a :class:`Task`: ``task.enqueue(*args, **kwargs)`` puts a job on
the task's queue, named after the task (``Job.name``), its payload the
serialized arguments; ``app.worker()`` runs a :class:`echomq.Worker` whose
handler finds the task by the job's name, calls it with the arguments and
keeps its return value, serialized, as the job's result, which
:meth:`TaskResult.wait` gives back as a value.  A job whose name no task of
the app has is dead-lettered at once with the reason, never retried.

The same under asyncio: :class:`echomq.aio.App` (its ``enqueue`` and
``wait`` are awaitable and its worker runs ``async def`` tasks).

Example::

    app = echomq.App("valkey://localhost:6379")

    @app.task(queue="email", lane=lambda to, **_: to.split("@")[1], max_attempts=5)
    def send(to, subject):
        ...
        return {"sent": True}

    r = send.enqueue("ada@example.com", subject="hi")
    app.worker(idle_timeout=1).run(handle_signals=False)   # elsewhere
    assert r.wait(timeout=10) == {"sent": True}
"""

from __future__ import annotations

import datetime
import json
from typing import Any, Callable, Dict, List, Optional, Protocol, Tuple, Union

from . import _convert
from .client import Client
from .errors import EchoMQError
from .job import Job
from .queue import Queue
from .worker import DiscardJob, Worker

Lane = Union[str, Callable[..., str]]
"""A task's lane: a name, or a function of the task's arguments (called as
the task is, e.g. ``lambda tenant, *a, **k: tenant``) that returns one."""


class Serializer(Protocol):
    """Turns a task's arguments and results into bytes and back."""

    def dumps(self, value: Any) -> bytes: ...

    def loads(self, data: bytes) -> Any: ...


class JSONSerializer:
    """Compact UTF-8 JSON (the default): arguments and results must be what
    :mod:`json` encodes."""

    # One encoder for every call: json.dumps with options builds a new one each time.
    _encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)

    def dumps(self, value: Any) -> bytes:
        return self._encoder.encode(value).encode("utf-8")

    def loads(self, data: bytes) -> Any:
        return json.loads(data)


class MsgpackSerializer:
    """MessagePack, when the ``msgpack`` package is installed (it is not a
    dependency of echomq)."""

    def __init__(self) -> None:
        try:
            import msgpack  # type: ignore[import-not-found,import-untyped,unused-ignore]
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError("MsgpackSerializer needs the msgpack package (pip install msgpack)") from e
        self._m = msgpack

    def dumps(self, value: Any) -> bytes:
        return bytes(self._m.packb(value, use_bin_type=True))

    def loads(self, data: bytes) -> Any:
        return self._m.unpackb(data, raw=False)


class TaskFailed(EchoMQError):
    """The task's job died (out of attempts, discarded, canceled or
    expired): ``job`` is what became of it, ``str()`` its last error."""

    def __init__(self, job: Job) -> None:
        super().__init__(f"task {job.name or '?'} (job {job.id}) died: {job.last_error}")
        self.job = job


class TaskResult:
    """A task's job once enqueued: its ``id`` and, by :meth:`wait`, the
    task's return value."""

    def __init__(self, task: "Task", id: int) -> None:
        self.task = task
        self.id = id

    def __repr__(self) -> str:
        return f"TaskResult({self.task.name!r}, id={self.id})"

    def wait(self, timeout: Optional[_convert.Seconds] = None) -> Any:
        """Block (on the server, no polling) until the job completes and
        return the task's return value; see :meth:`echomq.Queue.wait` for
        ``timeout`` and its errors.  Raises :class:`TaskFailed` when the job
        died."""
        return self.task._value(self.task.queue.wait(self.id, timeout))


class _Defaults:
    """What ``@app.task`` fixes for a task's jobs (one place for the sync and
    the async App)."""

    def __init__(self, lane: Optional[Lane], max_attempts: Optional[int], timeout: Optional[_convert.Seconds]):
        if lane is not None and not isinstance(lane, str) and not callable(lane):
            raise TypeError("lane must be a str or a function of the task's arguments")
        self.lane = lane
        self.max_attempts = max_attempts
        self.timeout = timeout


class Task:
    """A function registered with an :class:`App`: calling the task runs the
    function here; :meth:`enqueue` runs it on a worker."""

    def __init__(self, app: "BaseApp", fn: Callable[..., Any], name: str, queue: str, defaults: _Defaults) -> None:
        self.app = app
        self.fn = fn
        self.name = name
        self.queue_name = queue
        self._defaults = defaults
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn

    def __repr__(self) -> str:
        return f"<Task {self.name} on {self.queue_name}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    @property
    def queue(self) -> Queue:
        """The task's queue, on the app's client."""
        return self.app.client.queue(self.queue_name)

    def _job(self, args: Tuple[Any, ...], kwargs: Dict[str, Any], options: Dict[str, Any]) -> Tuple[str, bytes, Dict[str, Any]]:
        """The lane, payload and enqueue options of one call (no I/O)."""
        d = self._defaults
        lane = d.lane(*args, **kwargs) if callable(d.lane) else (d.lane or self.name)
        if not isinstance(lane, str):
            raise TypeError(f"task {self.name}: its lane function returned {type(lane).__name__}, not str")
        payload = self.app.serializer.dumps({"args": list(args), "kwargs": kwargs})
        o: Dict[str, Any] = {"name": self.name}
        if self.app.keep_results:
            o["keep"] = self.app.keep_results  # so wait() finds the result after the job finished
        if d.max_attempts is not None:
            o["max_attempts"] = d.max_attempts
        if d.timeout is not None:
            o["timeout"] = d.timeout
        o.update(options)
        return lane, payload, o

    def enqueue(self, *args: Any, **kwargs: Any) -> TaskResult:
        """Enqueue a run of the task with these arguments (serialized by
        the app's serializer); returns a :class:`TaskResult`."""
        lane, payload, o = self._job(args, kwargs, {})
        return TaskResult(self, int(self.queue.enqueue(lane, payload, **o)))

    def enqueue_in(self, delay: _convert.Seconds, *args: Any, **kwargs: Any) -> TaskResult:
        """As :meth:`enqueue`, due ``delay`` seconds from now."""
        lane, payload, o = self._job(args, kwargs, {"delay": delay})
        return TaskResult(self, int(self.queue.enqueue(lane, payload, **o)))

    def enqueue_at(self, when: datetime.datetime, *args: Any, **kwargs: Any) -> TaskResult:
        """As :meth:`enqueue`, due at ``when`` (an aware datetime, against
        the server's clock)."""
        lane, payload, o = self._job(args, kwargs, {"at": when})
        return TaskResult(self, int(self.queue.enqueue(lane, payload, **o)))

    def _value(self, job: Job) -> Any:
        """The return value kept with a finished job (TaskFailed if it died)."""
        if job.state != "completed":
            raise TaskFailed(job)
        return self.app.serializer.loads(job.result) if job.result else None


class BaseApp:
    """What :class:`App` and :class:`echomq.aio.App` share: the tasks by
    name, the serializer, and the dispatch of a job to its task."""

    _task_class: type = Task

    def __init__(
        self,
        client: Union[str, Client],
        *,
        queue: str = "default",
        serializer: Optional[Serializer] = None,
        keep_results: Optional[_convert.Seconds] = 3600,
    ) -> None:
        self.client = Client(client) if isinstance(client, str) else client
        if not isinstance(self.client, Client):
            raise TypeError("App takes a URL or an echomq.Client")
        self.default_queue = queue
        self.serializer: Serializer = serializer or JSONSerializer()
        self.keep_results = keep_results
        self.tasks: Dict[str, Task] = {}

    def task(
        self,
        fn: Optional[Callable[..., Any]] = None,
        *,
        name: Optional[str] = None,
        queue: Optional[str] = None,
        lane: Optional[Lane] = None,
        max_attempts: Optional[int] = None,
        timeout: Optional[_convert.Seconds] = None,
    ) -> Any:
        """Register ``fn`` as a task (``@app.task`` or ``@app.task(...)``).

        Args:
            name: the job name it runs under (default: the function's module
                and qualified name); unique within the app.
            queue: its queue (default: the app's).
            lane: its jobs' lane: a name, or a function of the task's
                arguments returning one (default: the task's name).
            max_attempts: attempts before a job dies (default: the queue's).
            timeout: seconds one attempt may run (default: the queue's).
        """

        defaults = _Defaults(lane, max_attempts, timeout)  # checked now, not at the decoration

        def register(f: Callable[..., Any]) -> Task:
            if not callable(f):
                raise TypeError("a task is a function")
            n = name or f"{f.__module__}.{f.__qualname__}"
            if n in self.tasks:
                raise ValueError(f"a task named {n!r} is registered already")
            t = self._task_class(self, f, n, queue or self.default_queue, defaults)
            self.tasks[n] = t
            return t

        return register(fn) if fn is not None else register

    def _task_of(self, job: Job) -> Tuple[Task, List[Any], Dict[str, Any]]:
        """The task a job names and its arguments; DiscardJob (dead now, no
        retry) for a name no task has or arguments that do not decode."""
        t = self.tasks.get(job.name)
        if t is None:
            what = f"unknown task name {job.name!r}" if job.name else "the job has no task name"
            raise DiscardJob(f"{what}: no task of this app runs it")
        try:
            call = self.serializer.loads(job.payload)
            args, kwargs = call["args"], call["kwargs"]
            if not isinstance(args, list) or not isinstance(kwargs, dict):
                raise TypeError("not {'args': [...], 'kwargs': {...}}")
            return t, args, kwargs
        except Exception as e:
            raise DiscardJob(f"task {job.name}: its arguments do not decode: {e}") from e

    def _result_of(self, value: Any) -> Optional[bytes]:
        """A task's return value as its job's result: None keeps none (wait()
        gives None back for it), anything else serialized."""
        return None if value is None else self.serializer.dumps(value)

    def _queues(self, queue: Optional[str]) -> str:
        """The one queue a worker drains (the named one, else the tasks')."""
        if queue is not None:
            return queue
        names = {t.queue_name for t in self.tasks.values()} or {self.default_queue}
        if len(names) > 1:
            raise ValueError(f"the tasks use queues {sorted(names)}: name the one this worker drains")
        return names.pop()


class App(BaseApp):
    """The tasks of an application over one client (a URL or an
    :class:`echomq.Client`); ``queue`` is the tasks' default queue,
    ``serializer`` (default :class:`JSONSerializer`) encodes arguments and
    results, and each task's job keeps its result ``keep_results`` seconds
    after it completes (default an hour; ``None``: the queue's retention),
    for :meth:`TaskResult.wait`."""

    def worker(self, queue: Optional[str] = None, **options: Any) -> Worker:
        """A :class:`echomq.Worker` on ``queue`` (default: the one queue the
        tasks use) that runs each job's task by its name; ``options`` as
        the Worker's (``concurrency``, ``idle_timeout``, ...).  A job whose
        name no task has is dead-lettered at once, with the reason."""
        q = self.client.queue(self._queues(queue))
        return Worker(q, self._handle, **options)

    def _handle(self, job: Job) -> Optional[bytes]:
        t, args, kwargs = self._task_of(job)
        return self._result_of(t.fn(*args, **kwargs))
