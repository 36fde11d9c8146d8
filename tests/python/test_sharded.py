"""Sharded queues from Python: create and reopen, a refused count, lanes
routed to shards by group, ids that find their shard, figures summed, the
Worker and the asyncio API on a sharded queue."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter

import pytest

import echomq
import echomq.aio


def _keys_of(resp, q):
    """The queue's keys and those of its shards (emq:{<name>...})."""
    return resp.snapshot(f"emq:{{{q.name}*")


def _shard_of(client, shards, group):
    """The index of the one shard whose queue knows lane ``group``."""
    homes = [i for i, s in enumerate(shards) if client.queue(s).lane(group).known]
    assert len(homes) == 1, f"lane {group} lives in shards {homes}"
    return homes[0]


def test_create_reopen_and_refuse_another_count(client, make_queue, resp):
    name = make_queue("sh").name
    q = client.create_sharded(name, 3)
    assert isinstance(q, echomq.Queue) and q.name == name
    shards = q.shards()
    assert len(shards) == 3
    for i, s in enumerate(shards):
        assert s.startswith(f"{name}.s{i}-")
    # Any client sees it by name; the same count opens it.
    assert client.queue(name).shards() == shards
    assert client.create_sharded(name, 3).shards() == shards
    # The server lists the sharded queue, not its shards.
    q.enqueue("a", "x")
    listed = client.queues()
    assert name in listed and not set(shards) & set(listed)
    q.claim().ack()

    before = _keys_of(resp, q)
    with pytest.raises(echomq.ShardsError) as err:
        client.create_sharded(name, 4)
    assert err.value.code == -8 and isinstance(err.value, echomq.EchoMQError)
    assert _keys_of(resp, q) == before and q.shards() == shards  # nothing changed

    for bad in (0, echomq.SHARDS_MAX + 1):
        with pytest.raises(echomq.InvalidArgument):
            client.create_sharded(name, bad)
    with pytest.raises(TypeError):
        client.create_sharded(name, "3")
    with pytest.raises(echomq.InvalidArgument):  # no room for the shard suffix
        client.create_sharded("x" * (echomq.QUEUE_NAME_MAX - 2), 2)
    assert _keys_of(resp, q) == before


def test_a_plain_queue_in_use_cannot_become_sharded(client, make_queue, resp):
    plain = make_queue("plain")
    assert plain.shards() == []
    plain.enqueue("a", "x")
    before = _keys_of(resp, plain)
    with pytest.raises(echomq.ShardsError):
        client.create_sharded(plain.name, 2)
    assert _keys_of(resp, plain) == before
    assert plain.shards() == [] and plain.stats().pending == 1
    plain.claim().ack()


def test_lanes_live_in_their_group_shard_and_ids_find_theirs(client, make_queue):
    q = client.create_sharded(make_queue("use").name, 3)
    shards = q.shards()
    lanes, per = 12, 5
    jobs = [(f"g{g}", f"g{g}:{j}") for j in range(per) for g in range(lanes)]
    ids = [q.enqueue(g, p) for g, p in jobs[:30]] + q.enqueue_many(jobs[30:])
    group_of = {i: g for i, (g, _) in zip(ids, jobs)}
    assert len(group_of) == lanes * per  # ids unique across shards

    home = {f"g{g}": _shard_of(client, shards, f"g{g}") for g in range(lanes)}
    assert set(home.values()) == {0, 1, 2}  # twelve groups reach every shard
    for i, g in group_of.items():
        assert i % 3 == home[g]  # the id names its shard
    assert q.lane("g0").depth == per  # found by the sharded queue's name

    s = q.stats()
    assert (s.pending, s.lanes, s.enqueued_total) == (lanes * per, lanes, lanes * per)
    assert sum(client.queue(n).stats().pending for n in shards) == s.pending
    assert sorted(lane.group for lane in q.lanes(page_size=5)) == sorted(home)

    # Claims rotate over the shards: three in a row come from three shards.
    claimed = [q.claim(lease=60) for _ in range(6)]
    assert len({j.id % 3 for j in claimed[:3]}) == 3 and len({j.id % 3 for j in claimed[3:]}) == 3
    for job in claimed:
        assert group_of[job.id] == job.group
        assert q.job(job.id).state == "leased"
        job.ack()
    with pytest.raises(echomq.StaleLeaseError):  # a second ack: settled already
        client._raw.ack(q.name, claimed[0].id, claimed[0].token)

    rest = []
    while (job := q.claim()) is not None:
        rest.append(job)
    assert sorted(j.id for j in claimed + rest) == sorted(ids)
    assert q.ack_many(rest) == []  # ids of every shard in one call
    s = q.stats()
    assert (s.pending, s.leased, s.acked_total, s.claimed_total) == (0, 0, lanes * per, lanes * per)
    assert q.verify() == []


def test_a_worker_drains_a_sharded_queue_each_job_once(client, make_queue):
    q = client.create_sharded(make_queue("worker").name, 4)
    ids = q.enqueue_many([(f"t{i % 30}", str(i)) for i in range(600)])
    seen = Counter()
    lock = threading.Lock()

    def handler(job):
        with lock:
            seen[job.id] += 1

    stats = echomq.Worker(q, handler, concurrency=4, idle_timeout=1.0).run(handle_signals=False)
    assert set(seen) == set(ids) and max(seen.values()) == 1
    assert (stats.acked, stats.failed, stats.lost, stats.errors) == (600, 0, 0, 0)
    s = q.stats()
    assert (s.acked_total, s.pending, s.leased) == (600, 0, 0)
    assert q.verify() == []


def test_async_create_and_claim(url, make_queue):
    name = make_queue("aio").name

    async def main():
        async with await echomq.aio.connect(url) as c:
            q = await c.create_sharded(name, 2)
            assert isinstance(q, echomq.aio.AsyncQueue) and q.name == name
            shards = await q.shards()
            assert len(shards) == 2 and await c.queue(name).shards() == shards
            with pytest.raises(echomq.ShardsError):
                await c.create_sharded(name, 3)
            ids = await q.enqueue_many([(f"g{i}", str(i)) for i in range(8)])
            got = []
            while (job := await q.claim()) is not None:
                got.append(job.id)
                await job.ack()
            assert sorted(got) == sorted(ids)
            # A waiting claim wakes for a job in whichever shard it lands.
            waiting = asyncio.create_task(q.claim(wait=5))
            await asyncio.sleep(0.2)
            late = await q.enqueue("late-lane", "late")
            job = await asyncio.wait_for(waiting, 5)
            assert job.id == late and job.payload == b"late"
            await job.ack()
            return (await q.stats()).acked_total

    assert asyncio.run(main()) == 9
