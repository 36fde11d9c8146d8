"""Everyday operations: idempotency keys, a job by id, delete, purge, the
list of queues, NoRetry and the worker's job hooks."""

from __future__ import annotations

import threading
import time

import pytest

import echomq


def test_idempotency_key_enqueues_once(queue):
    first = queue.enqueue("a", "x", key="order-17")
    again = queue.enqueue("b", "y", key="order-17")
    assert not first.duplicate
    assert again.duplicate and again == first
    other = queue.enqueue("a", "z", key="order-18", dedup_window=0.05)
    assert other == first + 1 and not other.duplicate
    time.sleep(0.08)
    assert not queue.enqueue("a", "z", key="order-18").duplicate  # the window ended
    plain = queue.enqueue("a", "x")
    assert isinstance(plain, int) and not plain.duplicate
    assert queue.stats().pending == 4


def test_keyed_batch_names_its_duplicates(queue):
    seen = queue.enqueue("a", "0", key="seen")
    ids = queue.enqueue_many([("a", "1", "seen"), ("b", "2", "new"), ("b", "3", "new"), ("c", "4")])
    assert [i.duplicate for i in ids] == [True, False, True, False]
    assert ids[0] == seen and ids[2] == ids[1] and ids[3] == ids[1] + 1
    assert queue.stats().pending == 3


def test_bad_idempotency_keys_are_refused(queue):
    with pytest.raises(echomq.InvalidArgument):
        queue.enqueue("a", "x", key="k" * (echomq.DEDUP_KEY_MAX + 1))
    with pytest.raises(echomq.InvalidArgument):
        queue.enqueue("a", "x", key="")
    with pytest.raises(echomq.InvalidArgument):
        queue.enqueue("a", "x", key="k", dedup_window=8 * 24 * 3600)
    assert queue.stats().enqueued_total == 0


def test_a_job_is_found_in_every_state(queue):
    jid = queue.enqueue("lane-a", "hello", max_attempts=2)
    j = queue.job(jid)
    assert (j.state, j.group, j.payload, j.token, j.max_attempts) == ("pending", "lane-a", b"hello", 0, 2)
    claimed = queue.claim()
    j = queue.job(jid)
    assert j.state == "leased" and j.lease_until == claimed.lease_until and j.token == claimed.token
    claimed.fail("boom", retry_in=60)
    j = queue.job(jid)
    assert j.state == "delayed" and j.due_at > j.enqueued_at and j.last_error == "boom"
    assert queue.job(10**9) is None
    with pytest.raises(echomq.InvalidArgument):
        queue.job(0)


def test_delete_refuses_a_leased_job(queue):
    p = queue.enqueue("a", "pending")
    d = queue.enqueue("a", "later", delay=60)
    queue.delete(p)
    leased = queue.enqueue("b", "leased")
    job = queue.claim()
    assert job.id == leased
    with pytest.raises(echomq.LeasedError):
        queue.delete(job)
    queue.delete(d)
    with pytest.raises(echomq.NotFoundError):
        queue.delete(d)
    s = queue.stats()
    assert (s.pending, s.delayed, s.leased) == (0, 0, 1)
    job.ack()


def test_purge_loops_to_empty_and_keeps_settings(queue):
    queue.enqueue_many([("big", str(i)) for i in range(30)] + [("small", "keep")])
    queue.enqueue_many([("big", "d"), ("small", "d")], delay=60)
    queue.weight("big", 4)
    assert queue.purge("big", step=7) == 31
    big = queue.lane("big")
    assert (big.depth, big.delayed, big.weight) == (0, 0, 4)
    assert queue.lane("small").depth == 1 and queue.lane("small").delayed == 1
    assert queue.purge("big", clear_settings=True) == 0
    assert queue.lane("big").weight_is_default


def test_queues_lists_the_server_queues(client, make_queue):
    a, b = make_queue("qa"), make_queue("qb")
    a.enqueue("g", "x")
    b.enqueue("g", "x")
    names = client.queues()
    assert a.name in names and b.name in names and names == sorted(names)


def test_no_retry_is_discard_job():
    assert echomq.NoRetry is echomq.DiscardJob


def test_worker_hooks_see_completed_failed_and_dead(queue):
    queue.enqueue_many([("a", "ok"), ("b", "flaky"), ("c", "hopeless")], max_attempts=2)
    seen = []
    lock = threading.Lock()

    def record(kind):
        def hook(job, arg):
            with lock:
                seen.append((kind, job.text, job.attempt, arg if kind == "completed" else type(arg).__name__))
        return hook

    def handler(job):
        if job.text == "hopeless":
            raise echomq.NoRetry("never")
        if job.text == "flaky":
            raise RuntimeError("flaky")
        return 42

    echomq.Worker(queue, handler, concurrency=1, retry_in=0, idle_timeout=0.5,
                  on_completed=record("completed"), on_failed=record("failed"),
                  on_dead=record("dead")).run(handle_signals=False)
    assert sorted(seen) == sorted([
        ("completed", "ok", 1, 42),
        ("failed", "flaky", 1, "RuntimeError"),
        ("failed", "flaky", 2, "RuntimeError"),
        ("dead", "flaky", 2, "RuntimeError"),
        ("failed", "hopeless", 1, "DiscardJob"),
        ("dead", "hopeless", 1, "DiscardJob"),
    ])
    assert queue.stats().dead == 2


def test_attempt_counts_within_a_redriven_budget(queue):
    jid = queue.enqueue("a", "x", max_attempts=1)
    queue.claim().fail("no", retry_in=0)
    assert queue.redrive([jid]) == 1
    job = queue.claim()
    assert (job.attempt, job.max_attempts) == (1, 1)
    job.fail("again", retry_in=0)
    dead = queue.dead()
    # A dead job's token is its last delivery's fencing token, as everywhere.
    assert (dead[0].token, dead[0].attempt) == (job.token, 1)
    assert queue.job(jid).token == job.token


def test_expired_keys_are_dropped_by_later_keyed_enqueues(queue, resp):
    idem, exp = f"emq:{{{queue.name}}}:idem", f"emq:{{{queue.name}}}:idemexp"
    for i in range(5):
        queue.enqueue("a", "x", key=f"short-{i}", dedup_window=0.05)
    assert resp("HLEN", idem) == 5 and resp("ZCARD", exp) == 5
    time.sleep(0.08)
    queue.enqueue("a", "x")  # an enqueue without a key costs nothing extra
    assert resp("HLEN", idem) == 5
    queue.enqueue("a", "x", key="long")
    assert resp("HLEN", idem) == 1 and resp("ZCARD", exp) == 1
    entry = resp("HGET", idem, "long").decode()
    _, ends = entry.split()
    assert int(ends) - queue.stats().server_time * 1000 > 23 * 3600 * 1000  # the 24 h default
