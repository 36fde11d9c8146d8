"""A job's life from Python (echomq.lifecycle), blocking and awaited, on a
real server: cancel wherever a job waits (and while a worker's handler
runs it), time limits, start deadlines, the queue-wide ceiling and rate, and
lane limits that burst; bad input refused before any I/O."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

import echomq
import echomq.aio


def test_cancel_waiting_delayed_and_finished(queue):
    a = queue.enqueue("g", "a")
    b = queue.enqueue("g", "b", delay=60)
    c = queue.enqueue("g", "c")
    assert queue.cancel(a, "no longer needed") == "pending"
    assert queue.cancel(b) == "delayed"
    assert queue.cancel(c, remove=True) == "pending"
    assert queue.cancel(a) == "dead"  # again: nothing changes
    dead = queue.job(a)
    assert dead.state == "dead" and dead.last_error == "canceled: no longer needed"
    assert queue.job(b).last_error == "canceled"
    assert queue.job(c) is None  # removed whole
    s = queue.stats()
    assert s.canceled_total == 3 and s.pending == 0 and s.delayed == 0
    assert queue.claim() is None
    d = queue.enqueue("g", "d")
    queue.claim().ack()
    with pytest.raises(echomq.FinishedError):  # acked and gone
        queue.cancel(d)
    with pytest.raises(echomq.NotFoundError):
        queue.cancel(10**9)
    with pytest.raises(echomq.InvalidArgument):
        queue.cancel(0)


def test_cancel_leased_settles_as_canceled_whatever_is_reported(queue):
    jid = queue.enqueue("g", "x")
    job = queue.claim()
    assert queue.cancel(jid, "stop") == "leased"
    job.ack()  # reported done: settles as canceled all the same
    got = queue.job(jid)
    assert got.state == "dead" and got.last_error == "canceled: stop"
    assert queue.stats().acked_total == 0


def test_a_worker_handler_learns_of_its_cancel(queue):
    started, seen = threading.Event(), {}

    def handler(job):
        started.set()
        seen["set"] = job.cancelled.wait(10)
        seen["why"] = job.halt_reason
        job.raise_if_cancelled()

    jid = queue.enqueue("g", "x")
    w = echomq.Worker(queue, handler, concurrency=1, lease=2)
    t = threading.Thread(target=w.run, kwargs={"handle_signals": False})
    t.start()
    try:
        assert started.wait(10)
        t0 = time.monotonic()
        queue.cancel(jid)
        deadline = time.monotonic() + 10
        while "why" not in seen and time.monotonic() < deadline:
            time.sleep(0.01)
        # Told well within one extension interval (a third of the lease).
        assert seen.get("set") is True and time.monotonic() - t0 < 2 / 3 + 0.5
        assert seen["why"] == "canceled"
        deadline = time.monotonic() + 10
        while queue.job(jid).state != "dead" and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        w.stop()
        t.join()
    assert queue.job(jid).last_error == "canceled"
    assert w.stats.canceled == 1


def test_a_time_limit_fires_then_the_retry_runs(queue):
    calls, told = [], []

    def handler(job):
        calls.append(job.attempt)
        if job.attempt == 1:
            t0 = time.monotonic()
            told.append((job.cancelled.wait(10), time.monotonic() - t0, job.halt_reason))
            job.raise_if_cancelled()  # cooperating: stop when told

    jid = queue.enqueue("g", "x", timeout=0.3, max_attempts=3)
    w = echomq.Worker(queue, handler, concurrency=1, retry_in=0)
    t = threading.Thread(target=w.run, kwargs={"handle_signals": False})
    t.start()
    try:
        deadline = time.monotonic() + 15
        while len(calls) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        while queue.stats().acked_total < 1 and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        w.stop()
        t.join()
    assert calls[:2] == [1, 2]
    assert told and told[0][0] is True and told[0][1] < 3 and told[0][2] == "timed out"
    assert queue.stats().acked_total == 1
    assert w.stats.timed_out == 1
    assert queue.job(jid) is None  # acked


def test_start_deadlines_and_the_default_timeout(queue):
    queue.default_timeout(5)
    assert queue.lifecycle().default_timeout == 5.0
    gone = queue.enqueue("g", "late", ttl=0.1)
    dropped = queue.enqueue("g", "drop", ttl=0.1, expire_drop=True)
    keep = queue.enqueue("g", "ok", ttl=60)
    time.sleep(0.25)
    job = queue.claim()
    if job is None:  # a claim that only swept says "more due now": the next one serves
        job = queue.claim()
    assert job is not None and job.id == keep
    assert queue.job(gone).last_error == "expired"
    assert queue.job(dropped) is None
    assert queue.stats().expired_total == 2
    queue.default_timeout(None)
    assert queue.lifecycle().default_timeout is None
    with pytest.raises(echomq.InvalidArgument):
        queue.enqueue("g", "x", ttl=1, expires_at=echomq_now())
    with pytest.raises(echomq.InvalidArgument):
        queue.enqueue("g", "x", expire_drop=True)
    with pytest.raises(echomq.InvalidArgument):
        queue.enqueue("g", "x", timeout=-1)


def echomq_now():
    import datetime

    return datetime.datetime.now(datetime.timezone.utc)


def test_queue_ceiling_and_rate(queue):
    queue.queue_limit(2)
    for g in "abcd":
        queue.enqueue(g, g)
    held = [queue.claim(), queue.claim()]
    assert all(held) and queue.claim() is None
    s = queue.lifecycle()
    assert s.queue_limit == 2 and s.leased == 2
    held[0].ack()
    assert queue.claim() is not None
    queue.queue_limit(None)
    queue.queue_rate(1, 60, burst=1)
    assert queue.claim() is not None  # the one token
    assert queue.claim() is None
    s = queue.lifecycle()
    assert (s.rate_jobs, s.rate_period, s.rate_burst) == (1, 60.0, 1)
    assert s.next_token_at is not None
    queue.queue_rate(None)
    assert queue.lifecycle().rate_jobs is None


def test_burst_lane_is_served_after_the_others(queue):
    queue.limit_burst("busy", 1, 3)
    for i in range(5):
        queue.enqueue("busy", f"b{i}")
    queue.enqueue("calm", "c")
    order = []
    for _ in range(4):
        j = queue.claim()
        order.append(j.group)
    assert order == ["busy", "calm", "busy", "busy"]
    lane = queue.lane("busy")
    assert lane.burst == 3 and lane.limit == 1 and lane.active == 3
    assert queue.claim() is None  # at its burst ceiling
    with pytest.raises(echomq.InvalidArgument):
        queue.limit_burst("busy", 3, 2)  # below the limit: nothing sent
    queue.limit("busy", None)  # clears both
    assert queue.lane("busy").burst is None


def test_awaited(url, queue):
    async def main():
        async with await echomq.aio.connect(url) as c:
            q = c.queue(queue.name)
            jid = await q.enqueue("g", "x", ttl=60, timeout=10)
            assert await q.cancel(jid) == "pending"
            await q.queue_limit(3)
            await q.limit_burst("g", 1, 2)
            s = await q.lifecycle()
            assert s.queue_limit == 3
            await q.queue_limit(None)

    asyncio.run(main())
    assert queue.stats().canceled_total == 1


def test_asyncio_handler_task_is_cancelled(queue):
    outcome = {}

    async def handler(job):
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            outcome["cancelled"] = job.halt_reason
            raise

    jid = queue.enqueue("g", "x")

    async def main():
        w = echomq.aio.Worker(queue, handler, concurrency=1)
        task = asyncio.create_task(w.run())
        for _ in range(500):
            if queue.stats().leased:
                break
            await asyncio.sleep(0.01)
        queue.cancel(jid)
        for _ in range(500):
            if "cancelled" in outcome and queue.job(jid).state == "dead":
                break
            await asyncio.sleep(0.01)
        w.stop()
        await task

    asyncio.run(main())
    assert outcome.get("cancelled") == "canceled"
    assert queue.job(jid).last_error == "canceled"
