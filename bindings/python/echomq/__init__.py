"""echomq: fair lanes for job queues over Valkey.

A queue is split into lanes, one per group (tenant, user, player, ...), and
claims rotate over the lanes, so a producer that submits a thousand jobs
does not delay one that submits ten.  Lanes may carry a weight (a share per
turn) and a limit (a concurrency ceiling), and may be paused.

Quick start::

    import echomq

    with echomq.connect("valkey://127.0.0.1:6379") as client:
        q = client.queue("emails")
        q.enqueue("tenant-42", b"hello")
        job = q.claim(lease=30)
        if job is not None:
            ...            # do the work
            job.ack()

    # or run a handler over the queue with 4 concurrent slots:
    echomq.Worker(q, handler, concurrency=4).run()

The compiled part (``echomq._echomq``) calls libechomq's C API; every call
that waits on the network releases the GIL.
"""

from . import _echomq
from . import errors as _errors
from .client import Client, connect
from .errors import (
    CanceledError,
    ConnectionError,
    EchoMQError,
    FlowError,
    InternalError,
    FullError,
    InvalidArgument,
    JobPendingError,
    LayoutError,
    LeasedError,
    NotFoundError,
    OutOfMemoryError,
    PermissionError,
    ProtocolError,
    BusyError,
    LoadingError,
    RetryableError,
    ServerError,
    ServerOutOfMemoryError,
    ShardsError,
    StaleLeaseError,
    TLSError,
    TryAgainError,
    TimeoutError,
    TooLargeError,
    UnconfirmedWarning,
    error_class,
    FinishedError,
    TimeLimitError,
)
from .flows import Flow, FlowInfo, FlowResult, GroupResult, Step, chain, chord, group, step
from .info import Event, LaneInfo, QueueStats
from .job import FailOutcome, Job
from .queue import UNSET, JobId, Queue
from .schedules import Schedule, Schedules, Upserted
from .lifecycle import JobHalted, LifecycleSettings
from .worker import DiscardJob, NoRetry, Worker, WorkerStats
from .tasks import App, JSONSerializer, MsgpackSerializer, Task, TaskFailed, TaskResult

__version__: str = _echomq.version_string()
"""Version of the libechomq built into this package."""

QUEUE_NAME_MAX: int = _echomq.QUEUE_NAME_MAX
GROUP_NAME_MAX: int = _echomq.GROUP_NAME_MAX
DEFAULT_MAX_PAYLOAD: int = _echomq.DEFAULT_MAX_PAYLOAD
HARD_MAX_PAYLOAD: int = _echomq.HARD_MAX_PAYLOAD
BATCH_MAX: int = _echomq.BATCH_MAX
WCLAIM_MAX: int = _echomq.WCLAIM_MAX
ATTEMPTS_MAX: int = _echomq.ATTEMPTS_MAX
WEIGHT_MAX: int = _echomq.WEIGHT_MAX
LIMIT_MAX: int = _echomq.LIMIT_MAX
REASON_MAX: int = _echomq.REASON_MAX
KEY_LAYOUT: int = _echomq.KEY_LAYOUT
DEDUP_KEY_MAX: int = _echomq.DEDUP_KEY_MAX
JOB_NAME_MAX: int = _echomq.JOB_NAME_MAX
HEADERS_MAX: int = _echomq.HEADERS_MAX
HEADERS_BYTES_MAX: int = _echomq.HEADERS_BYTES_MAX
SHARDS_MAX: int = _echomq.SHARDS_MAX
RESULT_MAX: int = _echomq.RESULT_MAX
PROGRESS_MAX: int = _echomq.PROGRESS_MAX


def version() -> str:
    """The run-time libechomq version, ``"major.minor.patch"``."""
    return _echomq.version_string()


def strerror(code: int) -> str:
    """libechomq's English text for a status code."""
    return _echomq.strerror(code)


__all__ = [
    "UnconfirmedWarning",
    "Client",
    "connect",
    "Queue",
    "Job",
    "FailOutcome",
    "QueueStats",
    "LaneInfo",
    "Worker",
    "App",
    "Task",
    "TaskResult",
    "TaskFailed",
    "JSONSerializer",
    "MsgpackSerializer",
    "WorkerStats",
    "DiscardJob",
    "NoRetry",
    "JobId",
    "Schedule",
    "Schedules",
    "Upserted",
    "JobHalted",
    "LifecycleSettings",
    "DEDUP_KEY_MAX",
    "JOB_NAME_MAX",
    "HEADERS_MAX",
    "HEADERS_BYTES_MAX",
    "UNSET",
    "error_class",
    "version",
    "strerror",
    "QUEUE_NAME_MAX",
    "GROUP_NAME_MAX",
    "DEFAULT_MAX_PAYLOAD",
    "HARD_MAX_PAYLOAD",
    "BATCH_MAX",
    "WCLAIM_MAX",
    "ATTEMPTS_MAX",
    "WEIGHT_MAX",
    "LIMIT_MAX",
    "REASON_MAX",
    "KEY_LAYOUT",
    "SHARDS_MAX",
    "RESULT_MAX",
    "PROGRESS_MAX",
    "Event",
    "Flow",
    "FlowInfo",
    "FlowResult",
    "GroupResult",
    "Step",
    "step",
    "chain",
    "group",
    "chord",
]
__all__ += _errors.__all__  # the exception classes, listed once in errors.py
