"""The Worker on the C worker engine: discard, prefetched jobs given back at
a graceful stop, weighted turns, the error hook, one set of defaults, and
the batch claim and layout error the binding exposes."""

from __future__ import annotations

import threading
import time

import pytest

import echomq
from emq_helpers import wait_for
from emq_valkey import Server


def test_discard_dead_letters_at_once(queue):
    queue.enqueue_many([("a", "hopeless"), ("b", "fine")], max_attempts=5)
    calls = []

    def handler(job):
        calls.append(job.text)
        if job.text == "hopeless":
            raise echomq.DiscardJob("bad input: cannot parse")

    stats = echomq.Worker(queue, handler, concurrency=2, idle_timeout=0.5).run(handle_signals=False)
    assert sorted(calls) == ["fine", "hopeless"], "a discarded job is not retried"
    assert (stats.acked, stats.failed, stats.discarded, stats.dead, stats.retried) == (1, 1, 1, 1, 0)
    dead = queue.dead()
    assert len(dead) == 1 and dead[0].payload == b"hopeless" and dead[0].attempt == 1
    assert dead[0].last_error == "bad input: cannot parse"
    s = queue.stats()
    assert (s.pending, s.leased, s.delayed, s.dead) == (0, 0, 0, 1)


def test_graceful_stop_gives_prefetched_jobs_back_at_once(queue):
    queue.enqueue_many([(f"L{i % 4}", str(i)) for i in range(20)])
    gate = threading.Event()
    started = threading.Event()

    def handler(job):
        started.set()
        gate.wait(10)

    # One handler thread, seven jobs claimed ahead of it (a fixed prefetch),
    # a long lease.
    worker = echomq.Worker(queue, handler, concurrency=1, prefetch=7, lease=60, target_wait=0)
    assert worker.options["slots"] == 8
    worker.start()
    assert started.wait(5)
    assert wait_for(lambda: queue.stats().leased == 8, timeout=5), "the engine fills its slots"
    assert worker.stats.buffered == 7
    worker.stop()
    threading.Timer(0.3, gate.set).start()
    t0 = time.monotonic()
    assert worker.join(10)
    assert time.monotonic() - t0 < 5.0
    s = queue.stats()
    # At once, not after the 60 s lease: the unstarted ones are back in their lanes.
    assert (s.leased, s.pending, s.acked_total) == (0, 19, 1)
    st = worker.stats
    assert (st.acked, st.released, st.running, st.buffered) == (1, 7, 0, 0)


def test_weighted_turns_apply_lane_weights(queue):
    for g, w in (("w1", 1), ("w2", 2), ("w3", 3)):
        queue.weight(g, w)
    queue.enqueue_many([(g, "") for _ in range(60) for g in ("w1", "w2", "w3")])
    order = []
    worker = echomq.Worker(queue, lambda j: order.append(j.group), concurrency=1, prefetch=9,
                           weighted=True, idle_timeout=0.5)
    worker.run(handle_signals=False)
    assert len(order) == 180
    first = {g: order[:60].count(g) for g in ("w1", "w2", "w3")}
    assert first == {"w1": 10, "w2": 20, "w3": 30}, "batches keep whole turns"


def test_defaults_are_the_engines_and_the_go_workers(client):
    # One set of defaults, written down in both READMEs and checked in the Go
    # tests too: 4 handlers, as many prefetched, the engine's lease, retry
    # and idle wait.
    assert echomq.worker.DEFAULT_CONCURRENCY == 4
    assert echomq.worker.DEFAULT_DRAIN_TIMEOUT == 30.0
    d = echomq._echomq.WORKER_DEFAULTS
    assert (d["slots"], d["lease_ms"], d["retry_delay_ms"], d["idle_wait_ms"]) == (
        8, 30000, echomq._echomq.RETRY_BACKOFF, 5000)
    w = echomq.Worker(client.queue("q"), lambda j: None)  # no I/O, nothing started
    assert w.options == {**d, "report_outcomes": 1}
    assert {k: w.options[k] for k in ("slots", "prefetch", "lease_ms", "weighted", "retry_delay_ms",
                                      "idle_wait_ms", "target_wait_ms", "idle_timeout_ms")} == dict(
        slots=8, prefetch=0, lease_ms=30000, weighted=0, retry_delay_ms=echomq._echomq.RETRY_BACKOFF,
        idle_wait_ms=5000, target_wait_ms=5, idle_timeout_ms=0)


def test_the_engine_keeps_the_policy(client):
    # What becomes of a reported job and when to stop idle are the engine's
    # (echomq_worker_options version 4): the Worker only passes them on.
    w = echomq.Worker(client.queue("q"), lambda j: None, idle_timeout=1.5, retry_in=0)
    assert (w.options["report_outcomes"], w.options["idle_timeout_ms"], w.options["retry_delay_ms"]) == (1, 1500, 0)
    with pytest.raises(echomq.InvalidArgument, match=r"idle_timeout must be 0.001 s to 1 day \(86400 s\)"):
        echomq.Worker(client.queue("q"), lambda j: None, idle_timeout=2 * 86400)


@pytest.mark.parametrize("target_wait, most", [(None, 6), (0, 32)])
def test_latency_bounded_prefetch_holds_little_ahead_of_slow_handlers(queue, target_wait, most):
    # Two handlers of 40 ms start a job every 20 ms: the default 5 ms target
    # keeps one job ahead of them, where a fixed prefetch fills all 32 slots.
    queue.enqueue_many([("heavy", "") for _ in range(200)])
    done = threading.Event()
    count = [0]

    def handler(job):
        time.sleep(0.04)
        count[0] += 1
        if count[0] >= 12:
            done.set()

    worker = echomq.Worker(queue, handler, concurrency=2, prefetch=30, target_wait=target_wait)
    worker.start()
    try:
        assert done.wait(20)
        leased = queue.stats().leased
    finally:
        worker.stop()
        assert worker.join(10)
    if target_wait is None:
        assert leased <= most, f"{leased} jobs held behind 40 ms handlers"
    else:
        assert leased >= most - 2, f"a fixed prefetch holds its slots, got {leased}"


def test_bad_worker_options_are_refused_before_io():
    with echomq.Client() as c:
        c._url = "valkey://127.0.0.1:1"  # nothing listens there: any I/O would fail
        q = c.queue("q")
        with pytest.raises(echomq.InvalidArgument, match="slots"):
            echomq.Worker(q, print, concurrency=4, slots=2)
        with pytest.raises(echomq.InvalidArgument, match="prefetch"):
            echomq.Worker(q, print, concurrency=1, prefetch=echomq.BATCH_MAX)
        with pytest.raises(echomq.InvalidArgument, match="target_wait"):
            echomq.Worker(q, print, target_wait=-0.001)
        with pytest.raises(echomq.InvalidArgument, match="concurrency"):
            echomq.Worker(q, print, concurrency=0)
        with pytest.raises(TypeError):
            echomq.Worker(q, print, on_error=42)
        c._url = "http://nowhere"
        with pytest.raises(echomq.InvalidArgument):
            echomq.Worker(q, print)


def test_on_error_fires_when_the_server_goes_away(make_queue):
    with Server(prefix="emq-pytest-gone-") as server:
        url = server.url
        errors = []
        with echomq.connect(url, timeout=0.5, connect_timeout=0.5) as c:
            q = c.queue("gone")
            q.enqueue("a", "x")
            done = threading.Event()
            worker = echomq.Worker(q, lambda j: done.set(), concurrency=1, on_error=errors.append,
                                   drain_timeout=1)
            worker.start()
            assert done.wait(5)
            server.stop()
            assert wait_for(lambda: errors, timeout=10), "no error reported"
            worker.stop(abandon=True)
            worker.join(5)
        assert isinstance(errors[0], (echomq.ConnectionError, echomq.TimeoutError)), errors
        assert worker.stats.errors >= 1


def test_claim_batch_serves_turns_in_one_call(queue):
    queue.enqueue_many([(g, f"{g}{i}") for i in range(3) for g in ("a", "b")])
    jobs = queue.claim_batch(4, lease=10)
    assert [j.text for j in jobs] == ["a0", "b0", "a1", "b1"]
    assert all(j.attempt == 1 for j in jobs)
    queue.weight("a", 2)
    rest = queue.claim_batch(10, weighted=True)
    assert [j.text for j in rest] == ["a2", "b2"]
    assert queue.claim_batch(5) == []
    assert queue.ack_many(jobs + rest) == []
    with pytest.raises(echomq.InvalidArgument):
        queue.claim_batch(echomq.BATCH_MAX + 1)


def test_layout_error_for_an_old_queue(client, resp):
    name = f"old-layout-{time.monotonic_ns()}"
    resp("SET", "emq:{%s}:seq" % name, "7")  # a queue written without the layout mark
    try:
        with pytest.raises(echomq.LayoutError) as ei:
            client.queue(name).claim()
        assert ei.value.code == -6 and "layout" in str(ei.value)
        assert echomq.error_class(-6) is echomq.LayoutError
    finally:
        resp("DEL", "emq:{%s}:seq" % name)


def test_a_failed_start_raises_and_join_does_not_hang():
    with echomq.Client(connect_timeout=0.5) as c:
        c._url = "valkey://127.0.0.1:1"  # nothing listens there
        w = echomq.Worker(c.queue("q"), print)
        assert w.join(0) is True  # not started: nothing to wait for
        with pytest.raises(echomq.ConnectionError) as ei:
            w.start()
        assert "127.0.0.1" in str(ei.value) or "connect" in str(ei.value).lower()
        t0 = time.monotonic()
        assert w.join(5) is False
        assert time.monotonic() - t0 < 1.0, "join after a failed start returns at once"
