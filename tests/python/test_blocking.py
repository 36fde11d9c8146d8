"""Blocking claims: wake-up on enqueue, cancel, and the GIL left free."""

from __future__ import annotations

import threading
import time

import pytest

import echomq


def test_blocking_claim_woken_by_enqueue_from_another_thread(url, queue):
    got = {}

    def waiter():
        with echomq.connect(url) as c:
            t0 = time.monotonic()
            got["job"] = c.queue(queue.name).claim(lease=10, wait=10)
            got["waited"] = time.monotonic() - t0
            got["job"].ack()

    t = threading.Thread(target=waiter)
    t.start()
    time.sleep(0.3)
    assert t.is_alive(), "the claim must block while the queue is empty"
    enq_at = time.monotonic()
    queue.enqueue("a", "wake up")
    t.join(5)
    assert not t.is_alive()
    assert got["job"].payload == b"wake up"
    assert 0.1 < got["waited"] < 0.3 + (time.monotonic() - enq_at) + 0.5
    assert queue.verify() == []


def test_blocking_claim_times_out_empty(queue):
    t0 = time.monotonic()
    assert queue.claim(wait=0.3) is None
    assert 0.25 <= time.monotonic() - t0 < 2.0


def _spin(seconds: float) -> int:
    """Pure-Python work: runs only while this thread holds the GIL."""
    n = 0
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        n += 1
    return n


def test_blocked_claims_do_not_hold_the_gil(url, queue):
    baseline = _spin(0.3)
    clients = [echomq.connect(url) for _ in range(2)]
    outcome = []
    started = threading.Barrier(3)

    def blocked(c):
        started.wait()
        try:
            c.queue(queue.name).claim(wait=30)
            outcome.append("returned")
        except echomq.CanceledError:
            outcome.append("canceled")

    threads = [threading.Thread(target=blocked, args=(c,)) for c in clients]
    for t in threads:
        t.start()
    started.wait()
    time.sleep(0.2)  # both threads are now inside the C call, waiting on the server
    during = _spin(0.3)
    assert all(t.is_alive() for t in threads), "the claims must still be blocked"
    # A third thread's Python code runs at (nearly) full speed meanwhile.
    assert during > 0.2 * baseline, (during, baseline)
    # cancel() from this thread interrupts both blocked calls.
    t0 = time.monotonic()
    for c in clients:
        c.cancel()
    for t in threads:
        t.join(5)
    assert not any(t.is_alive() for t in threads)
    assert time.monotonic() - t0 < 2.0
    assert outcome == ["canceled", "canceled"]
    # A canceled client reconnects on its next call.
    for c in clients:
        c.ping()
        c.close()
    assert queue.verify() == []


def test_close_interrupts_a_blocked_claim(url, queue):
    c = echomq.connect(url)
    errors = []

    def blocked():
        try:
            c.queue(queue.name).claim(wait=30)
        except echomq.EchoMQError as exc:
            errors.append(type(exc))

    t = threading.Thread(target=blocked)
    t.start()
    time.sleep(0.2)
    c.close()
    t.join(5)
    assert not t.is_alive()
    assert errors and issubclass(errors[0], (echomq.CanceledError, echomq.ConnectionError))
    with pytest.raises(echomq.ConnectionError):
        c.ping()
