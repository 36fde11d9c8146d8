"""Schedules and enqueue at a time from Python (echomq.schedules), blocking
and awaited: the API on a real server, its checks before any I/O, and a
worker that runs the ticks."""

from __future__ import annotations

import asyncio
import datetime
import threading
import time

import pytest

import echomq
import echomq.aio

UTC = datetime.timezone.utc


def utc(*args: int) -> datetime.datetime:
    return datetime.datetime(*args, tzinfo=UTC)


def test_upsert_is_idempotent_and_reads_back(queue):
    s = queue.schedules
    first = s.upsert("nightly", cron="0 3 * * *", zone="Europe/Paris", lane="t/reports", payload=b"build")
    assert first.changed == "created"
    assert first.next_at is not None and first.next_at.tzinfo is not None
    again = s.upsert("nightly", cron="0 3 * * *", zone="Europe/Paris", lane="t/reports", payload=b"build")
    assert again.changed == "unchanged" and again.next_at == first.next_at
    got = s.get("nightly")
    assert isinstance(got, echomq.Schedule)
    assert (got.cron, got.zone, got.lane, got.payload) == ("0 3 * * *", "Europe/Paris", "t/reports", b"build")
    assert got.every is None and got.missed == "once" and got.overlap == "fire"
    assert got.next_at == first.next_at and got.runs == 0 and got.last_outcome is None
    # 03:00 in Paris is 01:00 or 02:00 UTC.
    ticks = s.next("nightly", 3)
    assert len(ticks) == 3 and ticks[0] == first.next_at
    assert all(t.hour in (1, 2) and t.minute == 0 for t in ticks)
    assert [t.date() for t in ticks] == sorted({t.date() for t in ticks})
    changed = s.upsert("nightly", cron="0 3 * * *", zone="Europe/Paris", lane="t/reports", payload=b"other")
    assert changed.changed == "updated" and changed.next_at == first.next_at  # same timing: same tick


def test_list_pause_resume_remove(queue):
    s = queue.schedules
    for name in ("b", "a", "c"):
        s.upsert(name, every=datetime.timedelta(minutes=5), lane="L")
    assert [x.name for x in s.list(page=2)] == ["a", "b", "c"]
    assert [x.name for x in s] == ["a", "b", "c"]
    s.pause("b")
    assert s.get("b").paused
    s.resume("b")
    assert not s.get("b").paused
    s.remove("b")
    with pytest.raises(echomq.NotFoundError):
        s.get("b")
    with pytest.raises(echomq.NotFoundError):
        s.remove("b")
    assert [x.name for x in s.list()] == ["a", "c"]


@pytest.mark.parametrize(
    "kwargs, says",
    [
        (dict(lane="L"), "exactly one of every and cron"),
        (dict(lane="L", every=1, cron="* * * * *"), "exactly one of every and cron"),
        (dict(lane="L", every=0), "every must be at least"),
        (dict(lane="L", cron="61 * * * *"), "minute field '61'"),
        (dict(lane="L", cron="0 0 * * mon-xyz"), "day-of-week field"),
        (dict(lane="L", cron="* * * * *", zone="Mars/Olympus"), "unknown zone"),
        (dict(lane="L", every=1, zone="UTC"), "a zone goes with a cron schedule only"),
        (dict(lane="L", every=1, start=utc(2030, 1, 2), end=utc(2030, 1, 1)), "end is not after start"),
        (dict(lane="L", every=1, start=datetime.datetime(2030, 1, 1)), "naive datetime"),
        (dict(lane="L", every=1, missed="sometimes"), "missed must be one of"),
        (dict(lane="T/", every=1), "names a tenant, not a lane"),
        (dict(lane="L", cron="0 0 30 2 *"), "never fires"),
    ],
)
def test_bad_input_is_refused_clearly(queue, resp, kwargs, says):
    queue.enqueue("L", b"x")
    pattern = f"emq:{{{queue.name}}}:*"
    before = resp.snapshot(pattern)
    with pytest.raises(echomq.InvalidArgument, match=says):
        queue.schedules.upsert("s", **kwargs)
    assert resp.snapshot(pattern) == before


def test_bad_names(queue):
    with pytest.raises(echomq.InvalidArgument, match="invalid schedule name"):
        queue.schedules.upsert("a b", every=1, lane="L")
    with pytest.raises(echomq.InvalidArgument, match="invalid schedule name"):
        queue.schedules.get("")
    with pytest.raises(TypeError):
        queue.schedules.upsert(7, every=1, lane="L")


def test_a_worker_runs_each_tick_once_and_the_job_names_its_tick(queue):
    seen = []
    done = threading.Event()

    def handler(job):
        seen.append(job.id)
        if len(seen) >= 4:
            done.set()

    r = queue.schedules.upsert("fast", every=0.1, lane="L", payload=b"tick", max_attempts=2, overlap="skip")
    w = echomq.Worker(queue, handler, concurrency=2)
    t = threading.Thread(target=w.run)
    t.start()
    try:
        assert done.wait(10)
    finally:
        queue.schedules.pause("fast")
        w.stop()
        t.join()
    info = queue.schedules.get("fast")
    assert info.runs == len(seen) >= 4
    assert len(set(seen)) == len(seen)
    assert info.lateness is not None and info.lateness >= datetime.timedelta(0)
    assert info.fired_tick >= r.next_at
    # A lookup names the schedule and tick of a job that still exists.
    keep = queue.schedules.upsert("kept", every=0.05, lane="K", payload=b"k")
    time.sleep(0.2)
    job = queue.claim()
    assert job is not None
    name, tick = queue.schedules.tick_of(job.id)
    assert name == "kept" and tick >= keep.next_at
    assert queue.enqueue("K", b"x", key=f"sched:kept:{int(tick.timestamp() * 1000)}").duplicate
    job.ack()
    queue.schedules.remove("kept")
    plain = queue.enqueue("P", b"p")
    assert queue.schedules.tick_of(plain) is None
    while (j := queue.claim()) is not None:
        j.ack()


def test_enqueue_at_a_time(queue):
    now = datetime.datetime.now(UTC)
    past = queue.enqueue("L", b"past", at=now - datetime.timedelta(minutes=1))
    later = queue.enqueue("L", b"later", at=now + datetime.timedelta(minutes=10))
    job = queue.claim()
    assert job is not None and job.id == past
    job.ack()
    assert queue.claim() is None
    looked = queue.job(later)
    assert looked.state == "delayed"
    many = queue.enqueue_many([("L", b"a"), ("L", b"b")], at=now + datetime.timedelta(hours=1))
    assert all(queue.job(i).state == "delayed" for i in many)
    with pytest.raises(echomq.InvalidArgument, match="naive datetime"):
        queue.enqueue("L", b"x", at=datetime.datetime.now())
    with pytest.raises(echomq.InvalidArgument, match="delay or at"):
        queue.enqueue("L", b"x", at=now, delay=1)
    with pytest.raises(TypeError):
        queue.enqueue("L", b"x", at=1234567)
    with pytest.raises(echomq.InvalidArgument):
        queue.enqueue("L", b"x", at=now + datetime.timedelta(days=400))
    for i in [later, *many]:
        queue.delete(i)


def test_asyncio(url, queue):
    async def main():
        async with await echomq.aio.connect(url) as c:
            q = c.queue(queue.name)
            r = await q.schedules.upsert("a", every=0.05, lane="L", payload=b"x")
            assert r.changed == "created"
            assert (await q.schedules.upsert("a", every=0.05, lane="L", payload=b"x")).changed == "unchanged"
            assert [s.name for s in await q.schedules.list()] == ["a"]
            assert len(await q.schedules.next("a", 4)) == 4
            await asyncio.sleep(0.12)
            job = await q.claim()
            assert job is not None and job.group == "L"
            name, _ = await q.schedules.tick_of(job.id)
            assert name == "a"
            await job.ack()
            await q.schedules.pause("a")
            assert (await q.schedules.get("a")).paused
            await q.schedules.resume("a")
            await q.schedules.remove("a")
            at = await q.enqueue("L", b"y", at=datetime.datetime.now(UTC) - datetime.timedelta(seconds=1))
            j = await q.claim()
            while j is not None and j.id != at:
                await j.ack()
                j = await q.claim()
            assert j is not None
            await j.ack()
            while (j := await q.claim()) is not None:
                await j.ack()

    asyncio.run(main())
