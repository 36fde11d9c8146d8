"""OpenTelemetry tracing for EchoMQ (the ``echomq[otel]`` extra, over
``opentelemetry-api``).

After :func:`instrument`, every enqueue (``Queue.enqueue``,
``Queue.enqueue_many``, a task's ``enqueue``, sync or asyncio) makes a
PRODUCER span ``send <queue>`` and puts the current trace context in the
job's headers (the W3C ``traceparent``, and whatever else the configured
propagators carry); every handler a :class:`echomq.Worker` or
:class:`echomq.aio.Worker` runs (a task's too) runs inside a CONSUMER span
``process <queue>`` whose parent is that context, so one trace runs from the
producer through the worker into the jobs the handler enqueues.  A handler's
exception is recorded on its span, which ends with status ERROR.

Attributes follow the messaging semantic conventions:
``messaging.system`` = ``"echomq"``, ``messaging.destination.name`` = the
queue, ``messaging.operation.name`` / ``.type`` (``send``, ``process``),
``messaging.message.id`` = the job id (a batch: ``messaging.batch.message_count``),
and EchoMQ's own ``echomq.job.lane``, ``echomq.job.name`` and
``echomq.job.attempt``.

Headers the caller gives win: a ``traceparent`` already there is kept, and
the context is not added when it would take the job's headers over their
limits (``HEADERS_MAX`` entries, ``HEADERS_BYTES_MAX`` bytes): the span is
made all the same, the trace just does not cross that job.

Example::

    import echomq.otel
    echomq.otel.instrument()          # the global TracerProvider
    ...
    echomq.otel.uninstrument()
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Union

try:
    from opentelemetry import context as otel_context
    from opentelemetry import propagate, trace
    from opentelemetry.trace import SpanKind, Status, StatusCode
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError("echomq.otel needs opentelemetry-api: pip install 'echomq[otel]'") from e

from . import _echomq, _trace
from .job import Job

__all__ = ["instrument", "uninstrument", "SYSTEM"]

SYSTEM = "echomq"
"""The value of ``messaging.system``."""

_SCOPE = "echomq"


class _Tracing:
    """What :mod:`echomq._trace` calls when tracing is on."""

    def __init__(self, tracer: trace.Tracer) -> None:
        self.tracer = tracer

    def send(self, queue: str, lane: Optional[Union[str, bytes]], options: Dict[str, Any],
             send: Callable[[Dict[str, Any]], Any], count: Optional[int]) -> Any:
        attrs: Dict[str, Any] = {
            "messaging.system": SYSTEM,
            "messaging.destination.name": queue,
            "messaging.operation.name": "send",
            "messaging.operation.type": "send",
        }
        if lane is not None:
            attrs["echomq.job.lane"] = lane.decode("utf-8", "replace") if isinstance(lane, bytes) else lane
        if options.get("name"):
            attrs["echomq.job.name"] = options["name"]
        if count is not None:
            attrs["messaging.batch.message_count"] = count
        with self.tracer.start_as_current_span(f"send {queue}", kind=SpanKind.PRODUCER, attributes=attrs) as span:
            headers = _with_context(options.get("headers"))
            if headers is not None:
                options["headers"] = headers
            out = send(options)
            if count is None:
                span.set_attribute("messaging.message.id", str(int(out)))
            return out

    def process(self, queue: str, job: Job, run: Callable[[Job], Any]) -> Any:
        # start_span and attach by hand rather than start_as_current_span:
        # this runs once per job, and the context manager's layers cost.
        attrs: Dict[str, Any] = {
            "messaging.system": SYSTEM,
            "messaging.destination.name": queue,
            "messaging.operation.name": "process",
            "messaging.operation.type": "process",
            "messaging.message.id": str(job.id),
            "echomq.job.lane": job.group,
            "echomq.job.attempt": job.attempt,
        }
        if job.name:
            attrs["echomq.job.name"] = job.name
        parent = propagate.extract(job.headers) if job.headers else None
        span = self.tracer.start_span(f"process {queue}", context=parent, kind=SpanKind.CONSUMER, attributes=attrs)
        token = otel_context.attach(trace.set_span_in_context(span, parent))
        try:
            return run(job)
        except BaseException as e:
            span.record_exception(e)
            span.set_status(Status(StatusCode.ERROR, f"{type(e).__name__}: {e}"))
            raise
        finally:
            otel_context.detach(token)
            span.end()


def _with_context(given: Optional[Dict[str, str]]) -> Optional[Dict[str, str]]:
    """The job's headers with the current trace context added (None: leave
    them as they are: no context, or no room for it)."""
    carrier: Dict[str, str] = {}
    propagate.inject(carrier)
    if not carrier:
        return None
    headers = dict(given or {})
    for k, v in carrier.items():
        headers.setdefault(k, v)
    if len(headers) > _echomq.HEADERS_MAX or \
            sum(len(k.encode()) + len(v.encode()) for k, v in headers.items()) > _echomq.HEADERS_BYTES_MAX:
        return None
    return headers


def instrument(tracer_provider: Optional[trace.TracerProvider] = None) -> None:
    """Trace every enqueue and every handler of this process, with spans
    from ``tracer_provider`` (default: the global one).  Calling it again
    replaces the provider."""
    from . import __version__

    _trace.hook = _Tracing(trace.get_tracer(_SCOPE, __version__, tracer_provider=tracer_provider))


def uninstrument() -> None:
    """Stop tracing: enqueues and handlers make no spans and add no headers."""
    _trace.hook = None
