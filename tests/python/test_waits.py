"""Wait figures from Python: Queue.wait_figures, and LaneInfo's tenant,
wait, share and cost-mode fields, against a real server."""

import time

import pytest

import echomq


def test_wait_figures_setting(queue):
    assert queue.wait_window is None
    queue.wait_figures(30)
    assert queue.wait_window == 30
    with pytest.raises(echomq.InvalidArgument):
        queue.wait_figures(echomq._echomq.WAIT_WINDOW_MAX_S + 1)
    assert queue.wait_window == 30  # nothing changed
    queue.wait_figures(None)
    assert queue.wait_window is None


def test_lane_info_carries_waits_and_shares(queue):
    queue.enqueue("a", "x")
    queue.claim()
    off = queue.lane("a")
    assert off.wait_p50 is None and off.wait_p99 is None and off.window_share is None and off.wait_samples == 0
    queue.wait_figures(60)
    queue.enqueue_many([("a", "x"), ("b", "y")])
    time.sleep(0.2)
    queue.claim()
    queue.claim()
    a = queue.lane("a")
    # Seconds: the upper edge of the sqrt(2) bucket of a wait of >= 0.2 s.
    assert a.wait_samples == 1 and 0.2 <= a.wait_p50 <= 0.2 * 1.5 + 1
    assert a.wait_p99 == a.wait_p50
    assert a.window_claims == 1 and a.window_share == 0.5 and a.fair_share == 0.5
    assert a.tenant is None and a.is_tenant is False and a.cost_v is None and a.sits_out is False


def test_tenant_rows_and_cost_figures(queue):
    queue.wait_figures(60)
    queue.cost_mode(1000)
    queue.enqueue_many([("t/x", "1"), ("t/y", "2")])
    for _ in range(2):
        job = queue.claim()
        queue.charge(job.group, 40 if job.group == "t/x" else 10)
    x, t = queue.lane("t/x"), queue.lane("t/")
    assert x.tenant == "t" and not x.is_tenant
    assert t.tenant == "t" and t.is_tenant
    assert t.window_claims == 2 and t.wait_samples == 2
    assert x.window_share == pytest.approx(0.8) and t.window_share == pytest.approx(1.0)
    # Cost mode charges the tenant, whose lanes share its turns by count.
    assert x.cost_v is None and x.sits_out is False
    assert t.cost_v == 50.0
