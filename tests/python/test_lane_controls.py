"""Rate limit, hand-set throttle and size cap from Python, against a real server."""

import time

import pytest

import echomq


def test_rate_limit_throttle_and_cap(queue):
    queue.enqueue_many([("a", f"a{i}") for i in range(5)] + [("b", "b0")])
    queue.rate("a", 1, 60, burst=1)
    lane = queue.lane("a")
    assert lane.rate == (1, 60.0, 1) and lane.rate_is_default is False and lane.tokens == 1.0
    got = sorted(queue.claim().group for _ in range(2))
    assert got == ["a", "b"]  # a's one token, then it waits outside the ring
    assert queue.claim() is None
    lane = queue.lane("a")
    assert lane.serviceable is False and lane.next_token_at is not None
    queue.rate("a", None)  # cleared: free at once
    assert queue.claim().group == "a"
    queue.throttle("a", 0.3)
    assert queue.claim() is None
    time.sleep(0.35)
    assert queue.claim().group == "a"
    queue.cap("a", 2)
    before = queue.lane("a")
    assert before.cap == 2 and before.depth == 2
    with pytest.raises(echomq.FullError) as err:
        queue.enqueue("a", "over")
    assert err.value.code == -5 and "cap is 2" in err.value.message
    with pytest.raises(echomq.FullError):
        queue.enqueue_many([("b", "fits"), ("a", "does not")])
    assert queue.lane("b").depth == 0 and queue.lane("a").depth == 2  # nothing written
    queue.cap("a", None)
    queue.enqueue("a", "fits now")
    queue.defaults(rate=(10, 1), cap=100)
    lane = queue.lane("b")
    assert lane.rate == (10, 1.0, 10) and lane.rate_is_default and lane.cap == 100 and lane.cap_is_default
    queue.defaults(rate=None, cap=None)
    assert queue.lane("b").rate is None and queue.lane("b").cap is None
    assert queue.verify() == []


def test_lane_controls_refuse_bad_values_before_any_io(queue):
    queue.enqueue("a", "x")
    for call in (lambda: queue.rate("a", 0), lambda: queue.rate("a", 5, 0),
                 lambda: queue.rate("a", 5, 86400 * 2), lambda: queue.cap("a", 0),
                 lambda: queue.throttle("a", 0), lambda: queue.defaults(rate=(0, 1))):
        with pytest.raises(echomq.InvalidArgument):
            call()
    lane = queue.lane("a")
    assert lane.rate is None and lane.cap is None and lane.known and lane.delayed == 0
