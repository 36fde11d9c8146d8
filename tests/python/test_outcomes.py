"""Outcomes: retained results, waiting for a job (sync and asyncio), the
event stream and progress."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

import echomq
import echomq.aio


def _finish(queue, result=b"", **enqueue_options):
    jid = queue.enqueue("g", "payload", **enqueue_options)
    job = queue.claim()
    assert job.id == jid
    job.ack_result(result)
    return jid


def test_a_retained_job_keeps_its_result_for_its_time(make_queue):
    queue = make_queue()
    queue.retain(keep=0.3)
    jid = _finish(queue, b"done\x00!")
    job = queue.job(jid)
    assert job.state == "completed"
    assert job.result == b"done\x00!"
    assert job.payload == b""  # a completed job keeps no payload
    assert job.started_at and job.finished_at >= job.started_at >= job.enqueued_at
    time.sleep(0.4)
    assert queue.job(jid) is None
    plain = make_queue("plain")
    assert plain.job(_finish(plain, b"x")) is None


def test_keep_last_trims_exactly_and_a_job_may_keep_its_own(make_queue):
    queue = make_queue()
    queue.retain(last=2)
    ids = [_finish(queue, str(i)) for i in range(5)]
    assert [queue.job(i) is not None for i in ids] == [False, False, False, True, True]
    assert queue.job(ids[-1]).result == b"4"
    queue.clear_retention()
    own = _finish(queue, "mine", keep=60)
    assert queue.job(own).result == b"mine"
    assert queue.job(_finish(queue, "gone")) is None


def test_bad_outcome_input_is_refused(make_queue, resp):
    queue = make_queue()
    queue.enqueue("g", "p")
    job = queue.claim()
    before = resp.snapshot(f"emq:{{{queue.name}}}:*")
    with pytest.raises(echomq.TooLargeError):
        job.ack_result(b"r" * (echomq.RESULT_MAX + 1))
    with pytest.raises(echomq.TooLargeError):
        job.report_progress(b"p" * (echomq.PROGRESS_MAX + 1))
    for bad in ({"keep": 0}, {"keep": -1}, {"last": 0}, {}):
        with pytest.raises(echomq.InvalidArgument):
            queue.retain(**bad)
    for n in (0, -3):
        with pytest.raises(echomq.InvalidArgument):
            queue.set_events(n)
    with pytest.raises(echomq.InvalidArgument):
        queue.enqueue("g", "p", keep=-1)
    assert resp.snapshot(f"emq:{{{queue.name}}}:*") == before
    assert queue.job(job.id).state == "leased"


def test_a_waiter_wakes_at_the_ack_and_a_timeout_is_pending(make_queue, client):
    queue = make_queue()
    jid = queue.enqueue("g", "p")
    job = queue.claim()
    waiter = echomq.connect(client.url)
    got = {}

    def wait():
        got["job"] = waiter.queue(queue.name).wait(jid, timeout=10)
        got["at"] = time.monotonic()

    t = threading.Thread(target=wait)
    t.start()
    time.sleep(0.3)
    assert "job" not in got
    job.ack_result("42")
    acked = time.monotonic()
    t.join()
    waiter.close()
    assert got["job"].state == "completed" and got["job"].result == b"42"
    assert got["at"] - acked <= 0.1
    other = queue.enqueue("g", "p2")
    with pytest.raises(echomq.JobPendingError):
        queue.wait(other, timeout=0.1)
    with pytest.raises(echomq.NotFoundError):
        queue.wait(other + 100, timeout=0.1)


def test_a_waiter_on_a_dying_job_gets_dead_and_cancel_interrupts(make_queue, client):
    queue = make_queue()
    jid = queue.enqueue("g", "p", max_attempts=1)
    job = queue.claim()
    waiter = echomq.connect(client.url)
    errors = []

    def wait():
        try:
            waiter.queue(queue.name).wait(jid, timeout=20)
        except echomq.CanceledError as e:
            errors.append(e)

    t = threading.Thread(target=wait)
    t.start()
    time.sleep(0.2)
    waiter.cancel()
    t.join(5)
    assert not t.is_alive() and len(errors) == 1
    waiter.close()
    res = {}
    other = queue.client.clone()
    t = threading.Thread(target=lambda: res.setdefault("job", other.queue(queue.name).wait(jid, 10)))
    t.start()
    time.sleep(0.2)
    assert job.fail("broken") == echomq.FailOutcome.DEAD
    t.join()
    other.close()
    assert res["job"].state == "dead" and res["job"].last_error == "broken"


def test_the_async_wait_is_awaitable_and_cancellable(url, make_queue):
    queue = make_queue()
    jid = queue.enqueue("g", "p")

    async def main():
        async with await echomq.aio.connect(url) as ac:
            aq = ac.queue(queue.name)
            task = asyncio.ensure_future(aq.wait(jid, timeout=20))
            await asyncio.sleep(0.2)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            j = queue.claim()
            waiting = asyncio.ensure_future(aq.wait(jid, timeout=10))
            await asyncio.sleep(0.2)
            await asyncio.get_running_loop().run_in_executor(None, j.ack_result, b"async")
            done = await waiting
            assert done.state == "completed" and done.result == b"async"

    asyncio.run(main())


def test_events_iterate_sync_and_async_and_progress_is_one(url, make_queue):
    queue = make_queue()
    queue.set_events(1000, enqueued=True)
    jid = queue.enqueue("lane-a", "p")
    job = queue.claim()
    job.report_progress("half")
    assert queue.job(jid).progress == b"half"
    job.ack()
    events = list(queue.events())
    types = [e.type for e in events if e.id == jid]
    assert types == ["enqueued", "claimed", "progress", "completed"]
    prog = [e for e in events if e.type == "progress"][0]
    assert prog.fields["progress"] == "half" and prog.lane == "lane-a" and prog.attempt == 1
    assert all(isinstance(v, str) for e in events for v in e.fields.values()), "values are text, as type is"
    assert all(a.stream_id < b.stream_id for a, b in zip(events, events[1:]))

    async def follow():
        async with await echomq.aio.connect(url) as ac:
            aq = ac.queue(queue.name)
            seen = []

            async def reader():
                async for e in aq.events(after="$", follow=True, block=1):
                    seen.append(e)
                    if e.type == "completed":
                        return

            task = asyncio.ensure_future(reader())
            await asyncio.sleep(0.2)
            await asyncio.get_running_loop().run_in_executor(None, _finish, queue)
            await asyncio.wait_for(task, 5)
            return [e.type for e in seen]

    assert asyncio.run(follow()) == ["enqueued", "claimed", "completed"]
    queue.clear_events()


def test_a_worker_handler_returning_bytes_sets_the_result(make_queue):
    queue = make_queue()
    queue.retain(last=10)
    ids = [queue.enqueue("g", str(i)) for i in range(3)]
    echomq.Worker(queue, lambda job: b"r" + job.payload, concurrency=1, idle_timeout=0.5).run(handle_signals=False)
    assert [queue.job(i).result for i in ids] == [b"r0", b"r1", b"r2"]
