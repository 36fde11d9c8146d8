"""OpenTelemetry (echomq.otel): a PRODUCER span at enqueue, its context in
the job's headers, a CONSUMER span around the handler whose parent it is;
one trace from the producer, through the worker, into the jobs the handler
enqueues; sync and asyncio, tasks and the plain Queue and Worker. Spans are
read from the SDK's in-memory exporter."""

from __future__ import annotations

import asyncio

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

import echomq
import echomq.aio
import echomq.otel


def _provider():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return exporter, provider


@pytest.fixture()
def spans():
    exporter, provider = _provider()
    echomq.otel.instrument(tracer_provider=provider)
    try:
        yield exporter, provider.get_tracer("test")
    finally:
        echomq.otel.uninstrument()


def _of_kind(exporter, kind):
    return [s for s in exporter.get_finished_spans() if s.kind == kind]


def _chain_checks(exporter, q, root, first_id, second_id):
    """root -> send -> process(first) -> send -> process(second), one trace."""
    got = exporter.get_finished_spans()
    sends = _of_kind(exporter, SpanKind.PRODUCER)
    procs = _of_kind(exporter, SpanKind.CONSUMER)
    assert len(sends) == 2 and len(procs) == 2, [s.name for s in got]
    assert {s.context.trace_id for s in got} == {root.context.trace_id}
    send1 = next(s for s in sends if s.attributes["messaging.message.id"] == str(first_id))
    send2 = next(s for s in sends if s.attributes["messaging.message.id"] == str(second_id))
    proc1 = next(s for s in procs if s.attributes["messaging.message.id"] == str(first_id))
    proc2 = next(s for s in procs if s.attributes["messaging.message.id"] == str(second_id))
    assert send1.parent.span_id == root.context.span_id
    assert proc1.parent.span_id == send1.context.span_id
    assert send2.parent.span_id == proc1.context.span_id
    assert proc2.parent.span_id == send2.context.span_id
    assert send1.name == f"send {q.name}" and proc1.name == f"process {q.name}"
    a = proc1.attributes
    assert a["messaging.system"] == "echomq"
    assert a["messaging.destination.name"] == q.name
    assert a["messaging.operation.type"] == "process"
    assert a["echomq.job.attempt"] == 1
    assert a["echomq.job.name"] == "first"
    assert a["echomq.job.lane"] == "tenant-a"
    assert send2.attributes["echomq.job.lane"] == "tenant-b"
    assert send1.attributes["messaging.operation.type"] == "send"
    assert send1.attributes["echomq.job.name"] == "first"


def test_one_trace_through_a_task_into_the_task_it_enqueues(make_queue, spans):
    exporter, tracer = spans
    q = make_queue()
    app = echomq.App(q.client, queue=q.name)
    ids = {}

    @app.task(name="second", lane="tenant-b")
    def second(x):
        return x + 1

    @app.task(name="first", lane="tenant-a")
    def first(x):
        ids["second"] = second.enqueue(x * 10).id
        return x

    with tracer.start_as_current_span("request") as root:
        r = first.enqueue(4)
    assert "traceparent" in q.job(r.id).headers
    app.worker(concurrency=2, idle_timeout=0.5).run(handle_signals=False)
    assert r.wait(timeout=5) == 4
    _chain_checks(exporter, q, root, r.id, ids["second"])


def test_asyncio_tasks_carry_the_trace_too(make_queue, spans):
    exporter, tracer = spans
    q = make_queue()
    app = echomq.aio.App(q.client, queue=q.name)
    ids = {}

    @app.task(name="second", lane="tenant-b")
    async def second(x):
        await asyncio.sleep(0)
        return x + 1

    @app.task(name="first", lane="tenant-a")
    async def first(x):
        await asyncio.sleep(0)
        ids["second"] = (await second.enqueue(x * 10)).id
        return x

    async def main():
        with tracer.start_as_current_span("request") as root:
            r = await first.enqueue(4)
        await app.worker(concurrency=2, idle_timeout=0.5).run()
        return root, r

    root, r = asyncio.run(main())
    _chain_checks(exporter, q, root, r.id, ids["second"])


def test_the_plain_queue_and_worker_record_errors_and_attempts(make_queue, spans):
    exporter, _ = spans
    q = make_queue()
    jid = q.enqueue("lane-1", b"x", max_attempts=2, name="boom")
    tries = []

    def handler(job):
        tries.append(job.attempt)
        raise ValueError("no luck")

    echomq.Worker(q, handler, idle_timeout=0.5, retry_in=0).run(handle_signals=False)
    assert tries == [1, 2]
    [send] = _of_kind(exporter, SpanKind.PRODUCER)
    procs = _of_kind(exporter, SpanKind.CONSUMER)
    assert sorted(s.attributes["echomq.job.attempt"] for s in procs) == [1, 2]
    for s in procs:
        assert s.parent.span_id == send.context.span_id
        assert s.status.status_code == StatusCode.ERROR
        assert any(e.name == "exception" and "no luck" in e.attributes["exception.message"] for e in s.events)
    assert send.attributes["messaging.message.id"] == str(jid)
    assert send.parent is None  # no ambient span: the send starts the trace


def test_a_batch_is_one_span_whose_context_every_job_carries(make_queue, spans):
    exporter, _ = spans
    q = make_queue()
    ids = q.enqueue_many([("a", b"1"), ("b", b"2"), ("c", b"3")], headers={"tenant": "t1"})
    [send] = exporter.get_finished_spans()
    assert send.kind == SpanKind.PRODUCER
    assert send.attributes["messaging.batch.message_count"] == 3
    for i in ids:
        h = q.job(i).headers
        assert h["tenant"] == "t1"
        assert h["traceparent"].split("-")[2] == format(send.context.span_id, "016x")


def test_given_headers_win_and_a_full_set_is_left_as_it_is(make_queue, spans):
    exporter, _ = spans
    q = make_queue()
    mine = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
    a = q.enqueue("l", b"", headers={"traceparent": mine, "k": "v"})
    assert q.job(a).headers == {"traceparent": mine, "k": "v"}
    full = {f"h{i}": "v" for i in range(echomq.HEADERS_MAX)}
    b = q.enqueue("l", b"", headers=full)
    assert q.job(b).headers == full  # no room: enqueued all the same, without the context
    assert len(exporter.get_finished_spans()) == 2


def test_off_makes_no_span_and_adds_no_header(make_queue):
    exporter, provider = _provider()
    echomq.otel.instrument(tracer_provider=provider)
    echomq.otel.uninstrument()
    q = make_queue()
    jid = q.enqueue("l", b"x")
    assert not q.job(jid).headers
    echomq.Worker(q, lambda job: None, idle_timeout=0.3).run(handle_signals=False)
    assert len(exporter.get_finished_spans()) == 0
