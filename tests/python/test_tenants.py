"""Lanes inside tenants from Python (docs/architecture.md, "Lanes inside
tenants"): lane "T/L" belongs to tenant T; the tenant's own controls are set
on its name "T/" with the lane calls, against a real server."""

import pytest

import echomq


def tenant(group):
    return group.split("/", 1)[0]


def test_a_tenant_with_many_lanes_gets_the_share_of_a_tenant_with_one(queue):
    queue.enqueue_many([(f"big/u{i}", "x") for i in range(50) for _ in range(2)] + [("small/u0", "y")] * 100)
    order = [queue.claim().group for _ in range(60)]
    assert [tenant(g) for g in order].count("big") == 30
    assert len({g for g in order if tenant(g) == "big"}) == 30  # its turns rotate over its lanes
    assert queue.verify() == []


def test_tenant_controls_apply_across_its_lanes(queue):
    queue.enqueue_many([("acme/a", "x")] * 5 + [("acme/b", "x")] * 5 + [("solo", "y")] * 20)
    queue.limit("acme/", 2)
    held = [queue.claim() for _ in range(8)]
    assert sum(tenant(j.group) == "acme" for j in held) == 2
    assert queue.lane("acme/").active == 2
    next(j for j in held if tenant(j.group) == "acme").ack()
    nxt = [queue.claim() for _ in range(2)]
    assert any(tenant(j.group) == "acme" for j in nxt)
    queue.pause("acme/")
    assert all(queue.claim().group == "solo" for _ in range(3))
    queue.resume("acme/")
    queue.weight("acme/", 3)
    assert queue.lane("acme/").weight == 3
    assert queue.verify() == []


def test_a_tenant_name_holds_no_jobs(queue):
    with pytest.raises(echomq.InvalidArgument):
        queue.enqueue("acme/", "x")
    with pytest.raises(echomq.InvalidArgument):
        queue.enqueue("a/b/", "x")
    assert queue.stats().pending == 0
