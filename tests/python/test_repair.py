"""Queue.repair: a dry run reports and writes nothing, apply fixes what verify
reports (here: the hidden underflow and a lane lost from the ring), and a
second repair finds nothing."""

from __future__ import annotations

import echomq


def test_repair_dry_run_then_apply(queue, resp):
    queue.enqueue("a", "1")
    queue.enqueue("a", "2")
    queue.enqueue("b", "3")
    held = queue.claim(lease=60)
    assert queue.repair() == [] and queue.repair(apply=True) == []
    prefix = f"emq:{{{queue.name}}}:"
    resp("HSET", prefix + "gactive", "b", "-1")  # an underflow
    resp("LREM", prefix + "ring", "0", "b")  # lost from the ring
    assert queue.verify() != []
    planned = queue.repair(step=1)
    assert any("gactive: lane b -1 (a hidden underflow) -> 0" in line for line in planned), planned
    assert any("ring: lane b added" in line for line in planned), planned
    assert queue.verify() != []  # the dry run wrote nothing
    assert queue.repair(apply=True) == planned
    assert queue.verify() == []
    assert queue.repair(apply=True) == []
    held.ack()
    for _ in range(2):
        queue.claim().ack()
    assert queue.stats().pending == 0


def test_repair_bad_step(queue):
    try:
        queue.repair(step=0)
    except echomq.InvalidArgument:
        pass
    else:
        raise AssertionError("step 0 must be refused")
