"""What a Python user meets (issue 35): errors in the caller's own terms,
clean namespaces, a telling repr, an asyncio API with the blocking one's
members."""

from __future__ import annotations

import asyncio
import copy
import inspect

import pytest

import echomq
import echomq.aio
from echomq import _echomq


def test_defaults_rate_must_be_a_pair(queue):
    with pytest.raises(TypeError, match=r"rate must be a \(jobs, per_seconds\) pair or None, not 5"):
        queue.defaults(rate=5)
    queue.defaults(rate=(5, 1))
    assert queue.lane("x").rate is not None


def test_enqueue_many_names_the_bad_job_and_writes_nothing(queue):
    with pytest.raises(echomq.InvalidArgument, match=r"job 1 must be \(group, payload\), \(group, payload, key\) "
                                                     r"or a dict, got a tuple of 1"):
        queue.enqueue_many([("g", b"ok"), ("g",)])
    with pytest.raises(echomq.InvalidArgument, match=r"job 0 .* got 'g'"):
        queue.enqueue_many(["g"])
    assert queue.stats().enqueued_total == 0


@pytest.mark.parametrize("call, message", [
    (lambda q: q.enqueue("g", b"x", delay=1e12),
     r"delay must be 0 s to 366 days \(31622400 s\), got 1000000000000\.0 s"),
    (lambda q: q.claim(lease=-1), r"lease must be 0\.001 s to 7 days \(604800 s\), got -1 s"),
    (lambda q: q.enqueue("g", b"x", keep=0), r"keep must be 0\.001 s to 366 days"),
    (lambda q: q.throttle("g", 10**9), r"seconds must be 0\.001 s to 366 days"),
    (lambda q: q.wait(1, timeout=2 * 86400), r"timeout must be 0 s to 1 day \(86400 s\), got 172800 s"),
])
def test_times_are_refused_in_seconds(queue, call, message):
    with pytest.raises(echomq.InvalidArgument, match=message) as err:
        call(queue)
    assert "_ms" not in str(err.value), "the caller gave seconds"
    assert queue.stats().enqueued_total == 0


def test_namespaces_hold_only_the_api():
    # `from __future__ import annotations` binds a name `annotations`.
    assert "annotations" not in vars(echomq)
    public = {n for n, v in vars(echomq).items() if not n.startswith("_") and not inspect.ismodule(v)}
    assert public <= set(echomq.__all__), public - set(echomq.__all__)
    assert dir(echomq.aio) == sorted(echomq.aio.__all__)  # no typing names


def test_repr_of_a_job_shows_its_state(queue):
    jid = queue.enqueue("g", b"x")
    job = queue.claim()
    assert "state='leased'" in repr(job) and "attempt=1/3" in repr(job)
    job.ack()
    queue.retain(last=5)
    jid = queue.enqueue("g", b"y")
    queue.claim().ack()
    assert "state='completed'" in repr(queue.job(jid))


def test_async_queue_has_every_member_of_queue():
    members = {n for n, _ in inspect.getmembers(echomq.Queue) if not n.startswith("_")}
    missing = {n for n in members if not hasattr(echomq.aio.AsyncQueue, n)}
    assert not missing, missing
    # What asks the server is awaited: methods, and the two properties of
    # Queue that ask the server (a property cannot be awaited).
    for name in members:
        sync = inspect.getattr_static(echomq.Queue, name)
        wrapped = inspect.getattr_static(echomq.aio.AsyncQueue, name)
        if isinstance(sync, property) and name not in ("cost_quantum", "wait_window"):
            assert isinstance(wrapped, property), name
        elif name in ("lanes", "events"):
            assert inspect.isasyncgenfunction(wrapped), name
        else:
            assert inspect.iscoroutinefunction(wrapped), name


def test_async_job_extend_without_an_argument_takes_the_queues_lease(url, make_queue):
    name = make_queue().name

    async def main():
        async with await echomq.aio.connect(url) as client:
            q = client.queue(name, lease=20)
            await q.enqueue("g", b"x")
            job = await q.claim(lease=1)
            until = await job.extend()
            assert until - job.enqueued_at > 15, "extended by the queue's 20 s lease"
            await job.ack()
            lanes = [lane.group async for lane in q.lanes()]
            assert lanes == ["g"] or lanes == []
            assert await q.cost_quantum() == 0 and await q.wait_window() is None

    asyncio.run(main())


def test_job_fields_come_from_the_modules_one_list():
    assert tuple(echomq.Job.__annotations__) == _echomq.JOB_FIELDS
    assert set(_echomq.JOB_FIELDS) <= set(echomq.Job.__slots__)


def test_a_second_ack_is_stale_and_an_id_never_minted_not_found(queue):
    queue.enqueue("g", b"x")
    job = queue.claim()
    job.ack()
    with pytest.raises(echomq.StaleLeaseError):
        job.ack()
    with pytest.raises(echomq.StaleLeaseError):
        job.extend(5)
    ghost = copy.copy(job)
    ghost.id += 1000
    with pytest.raises(echomq.NotFoundError):
        ghost.ack()


def test_a_lane_setting_may_come_before_its_first_job(queue):
    # One rule in every binding and the CLI (which adds a note).
    queue.limit("newco", 2)
    queue.pause("newco")
    lane = queue.lane("newco")
    assert lane.limit == 2 and lane.paused and lane.depth == 0
