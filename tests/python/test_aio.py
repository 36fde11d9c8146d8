"""echomq.aio: awaited calls that never block the loop, a cancellable
waiting claim that claims nothing, and the async Worker on the C engine."""

from __future__ import annotations

import asyncio
import time

import pytest

import echomq
import echomq.aio


def run(coro):
    return asyncio.run(coro)


def test_enqueue_claim_ack(url, queue):
    async def main():
        async with await echomq.aio.connect(url) as c:
            q = c.queue(queue.name)
            first = await q.enqueue("a", "x", key="k1")
            assert (await q.enqueue("a", "x", key="k1")).duplicate
            job = await q.claim()
            assert job.id == first and job.payload == b"x"
            await job.ack()
            assert await q.claim() is None
            assert queue.name in await c.queues()
    run(main())
    assert queue.stats().acked_total == 1


def test_waiting_claim_leaves_the_loop_free_and_wakes_for_work(url, queue):
    async def main():
        async with await echomq.aio.connect(url) as c:
            q = c.queue(queue.name)
            ticks = 0

            async def ticker():
                nonlocal ticks
                while True:
                    await asyncio.sleep(0.01)
                    ticks += 1

            t = asyncio.create_task(ticker())
            claim = asyncio.create_task(q.claim(wait=10))
            await asyncio.sleep(0.3)
            assert not claim.done()
            await q.enqueue("a", "late")  # the ordinary connection is not held up
            job = await asyncio.wait_for(claim, 5)
            t.cancel()
            assert job.payload == b"late" and ticks > 10
            await job.ack()
    run(main())


def test_cancelling_a_waiting_claim_claims_nothing(url, queue):
    async def main():
        async with await echomq.aio.connect(url) as c:
            q = c.queue(queue.name)
            claim = asyncio.create_task(q.claim(wait=30))
            await asyncio.sleep(0.2)
            began = time.monotonic()
            claim.cancel()
            with pytest.raises(asyncio.CancelledError):
                await claim
            assert time.monotonic() - began < 2, "the server-side wait was not interrupted"
            jid = await q.enqueue("a", "after")
            return jid
    jid = run(main())
    job = queue.job(jid)
    assert job.state == "pending" and job.token == 0
    assert queue.stats().leased == 0


def test_a_claim_cancelled_right_away_gives_back_what_it_got(url, queue):
    queue.enqueue_many([("a", str(i)) for i in range(20)])

    async def main():
        async with await echomq.aio.connect(url) as c:
            q = c.queue(queue.name)
            for _ in range(20):
                t = asyncio.create_task(q.claim(wait=5))
                await asyncio.sleep(0)
                t.cancel()
                try:
                    job = await t
                except asyncio.CancelledError:
                    continue
                await job.ack()
    run(main())
    s = queue.stats()
    assert s.leased == 0 and s.pending + s.acked_total == 20


def test_async_worker_runs_handlers_and_drains(url, queue):
    queue.enqueue_many([("a", "ok"), ("b", "boom"), ("c", "ok")], max_attempts=1)
    seen = []
    running = 0
    peak = 0

    async def handler(job):
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.1)
        running -= 1
        if job.text == "boom":
            raise ValueError("boom")
        return job.text

    dead = []

    async def main():
        w = echomq.aio.Worker(queue, handler, concurrency=3, idle_timeout=0.5,
                              on_completed=lambda j, r: seen.append(r), on_dead=lambda j, e: dead.append(str(e)))
        return await w.run()

    stats = run(main())
    assert (stats.acked, stats.failed, stats.dead) == (2, 1, 1)
    assert seen == ["ok", "ok"] and dead == ["boom"]
    assert peak >= 2, "handlers did not run concurrently"
    assert queue.dead()[0].last_error.startswith("ValueError: boom")


def test_cancelling_run_is_a_graceful_stop(url, queue):
    queue.enqueue_many([("a", str(i)) for i in range(5)])
    finished = []

    async def handler(job):
        await asyncio.sleep(0.3)
        finished.append(job.id)

    async def main():
        w = echomq.aio.Worker(queue, handler, concurrency=2)
        t = asyncio.create_task(w.run())
        await asyncio.sleep(0.1)
        t.cancel()
        with pytest.raises(asyncio.CancelledError):
            await t

    run(main())
    s = queue.stats()
    assert len(finished) == 2, "the running handlers finish"
    assert s.acked_total == 2 and s.leased == 0 and s.pending == 3


def test_a_drain_that_times_out_cancels_the_handlers_still_running(url, queue):
    # The asyncio Worker is the thread Worker with its handlers on the loop:
    # a handler still running when the drain times out is cancelled (its job
    # comes back by its lease), so run() ends within the drain timeout.
    queue.enqueue("a", "stuck")
    cancelled = []

    async def handler(job):
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.append(job.id)
            raise

    async def main():
        w = echomq.aio.Worker(queue, handler, concurrency=1, drain_timeout=0.3, lease=1)
        t = asyncio.create_task(w.run())
        await asyncio.sleep(0.3)
        started = time.monotonic()
        t.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(t, 5)
        return time.monotonic() - started

    took = run(main())
    assert took < 2 and len(cancelled) == 1
    job = queue.claim(wait=3)  # back by its lease
    assert job is not None and job.attempt == 2
    job.ack()


def test_cancelling_run_while_the_engine_starts_still_stops_it(url, queue):
    # A cancel that lands before the engine has started (here: at once)
    # waits for the start, then drains: no engine is left running.
    queue.enqueue_many([("a", str(i)) for i in range(3)])
    seen = []

    async def handler(job):
        seen.append(job.id)

    async def main():
        w = echomq.aio.Worker(queue, handler, concurrency=1)
        t = asyncio.create_task(w.run())
        await asyncio.sleep(0)  # run() is in its start
        t.cancel()
        with pytest.raises(asyncio.CancelledError):
            await t
        assert w.stopping, "the cancel stopped the engine"
        assert w.join(5), "and its drain ended"

    run(main())
    time.sleep(0.5)  # an engine left running would take the rest meanwhile
    s = queue.stats()
    assert s.leased == 0 and s.acked_total + s.pending == 3
    assert s.acked_total == len(seen)
