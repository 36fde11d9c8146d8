"""A handler's return value is its job's result (issue 35): bytes and str as
they are, anything else through the Worker's serializer (JSON by default).
A result that cannot be kept completes the job all the same: it is dropped,
the reason kept and logged, and the handler never runs again for it."""

from __future__ import annotations

import asyncio
import json
import logging

import echomq
import echomq.aio


def _run(queue, handler, **kw):
    kw.setdefault("concurrency", 1)
    kw.setdefault("idle_timeout", 0.5)
    return echomq.Worker(queue, handler, **kw).run(handle_signals=False)


def test_return_values_are_kept(make_queue):
    q = make_queue()
    q.retain(last=100)
    values = [{"ok": True}, 42, [1, "two"], "text", b"\x00bytes", None, 2.5]
    ids = [q.enqueue("g", str(i)) for i in range(len(values))]
    _run(q, lambda job: values[int(job.text)])
    results = [q.job(i).result for i in ids]
    assert all(q.job(i).result_dropped == "" for i in ids)
    assert results == [b'{"ok":true}', b"42", b'[1,"two"]', b"text", b"\x00bytes", b"", b"2.5"]
    assert json.loads(results[0]) == {"ok": True}
    assert all(q.job(i).state == "completed" for i in ids)


def test_a_serializer_of_your_own(make_queue):
    q = make_queue()
    q.retain(last=10)
    jid = q.enqueue("g", "x")
    _run(q, lambda job: {"n": 1}, serializer=lambda v: repr(sorted(v.items())))
    assert q.job(jid).result == b"[('n', 1)]"


def test_a_result_that_cannot_be_encoded_completes_the_job(make_queue, caplog):
    q = make_queue()
    q.retain(last=10)
    jid = q.enqueue("g", "x", max_attempts=3)
    runs = []

    def handler(job):
        runs.append(job.attempt)
        return {1, 2}  # a set: not JSON

    completed = []
    with caplog.at_level(logging.ERROR, logger="echomq.worker"):
        stats = _run(q, handler, on_completed=lambda job, result: completed.append(result))
    assert runs == [1], "never run again because of its result"
    assert stats.acked == 1 and stats.failed == 0
    assert completed == [{1, 2}]
    job = q.job(jid)
    assert job.state == "completed" and job.result == b""
    assert job.result_dropped == "cannot encode the result: TypeError: Object of type set is not JSON serializable"
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert errors == [f"job {jid} (lane 'g'): result dropped, the job completes without it: cannot encode the "
                      "result: TypeError: Object of type set is not JSON serializable"]


def test_a_result_over_the_limit_completes_the_job(make_queue, caplog):
    q = make_queue()
    q.retain(last=10)
    jid = q.enqueue("g", "x", max_attempts=3)
    runs = []

    def handler(job):
        runs.append(job.attempt)
        return b"z" * (echomq.RESULT_MAX + 1)

    with caplog.at_level(logging.ERROR, logger="echomq.worker"):
        stats = _run(q, handler)
    assert runs == [1] and stats.acked == 1 and stats.dead == 0
    job = q.job(jid)
    assert job.state == "completed" and job.result == b""
    assert job.result_dropped == "result of 65537 bytes is over ECHOMQ_RESULT_MAX (65536)"
    assert any("result of 65537 bytes is over RESULT_MAX (65536)" in r.getMessage() for r in caplog.records)


def test_asyncio_handlers_return_results_too(url, make_queue):
    q = make_queue()
    q.retain(last=10)
    jid = q.enqueue("g", "x")

    async def handler(job):
        await asyncio.sleep(0)
        return {"async": job.text}

    async def main():
        async with await echomq.aio.connect(url) as client:
            await echomq.aio.Worker(client.queue(q.name), handler, concurrency=2, idle_timeout=0.5).run()

    asyncio.run(main())
    assert q.job(jid).result == b'{"async":"x"}'


def test_the_completed_event_says_why_a_result_was_dropped(make_queue):
    q = make_queue()
    q.set_events(100)
    jid = q.enqueue("g", "x")
    _run(q, lambda job: object())
    completed = [e for e in q.events() if e.type == "completed" and e.id == jid]
    assert len(completed) == 1
    assert completed[0].fields["result_dropped"].startswith("cannot encode the result: TypeError")
    q.clear_events()
