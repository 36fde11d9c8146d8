"""The ring: fairness under a skewed load, weights, limits, pause/resume."""

from __future__ import annotations

from collections import Counter


def test_skewed_load_is_served_round_robin(queue):
    # One masher lane enqueues 200 jobs before four quiet lanes enqueue 3 each.
    queue.enqueue_many([("masher", f"m{i}") for i in range(200)])
    for lane in ("q1", "q2", "q3", "q4"):
        queue.enqueue_many([(lane, f"{lane}-{i}") for i in range(3)])
    order = []
    for _ in range(15):
        job = queue.claim()
        order.append(job)
        job.ack()
    groups = [j.group for j in order]
    # Every turn of the ring serves each of the five lanes exactly once ...
    for turn in range(3):
        assert sorted(groups[turn * 5 : turn * 5 + 5]) == ["masher", "q1", "q2", "q3", "q4"], groups
    # ... so the quiet lanes are done within 15 claims, not after 200.
    assert Counter(groups) == {"masher": 3, "q1": 3, "q2": 3, "q3": 3, "q4": 3}
    # Inside a lane, jobs come in mint order.
    for lane in ("masher", "q1"):
        ids = [j.id for j in order if j.group == lane]
        assert ids == sorted(ids)
    assert queue.lane("q1").depth == 0 and queue.lane("masher").depth == 197
    assert queue.verify() == []


def test_schedule_is_deterministic(make_queue):
    def run(q):
        for i in range(30):
            q.enqueue(f"g{i % 4 if i < 20 else 0}", str(i))
        out = []
        while (job := q.claim()) is not None:
            out.append((job.group, job.payload))
            job.ack()
        return out

    assert run(make_queue("a")) == run(make_queue("b"))


def test_weights_via_wclaim(queue):
    weights = {"heavy": 3, "light": 1, "mid": 2}
    for lane, w in weights.items():
        queue.enqueue_many([(lane, str(i)) for i in range(60)])
        queue.weight(lane, w)
    served = Counter()
    for _ in range(30):
        batch = queue.wclaim(lease=10)
        assert batch, "lanes are backlogged"
        lane = batch[0].group
        assert all(j.group == lane for j in batch), "one wclaim serves one lane"
        assert len(batch) == weights[lane]
        ids = [j.id for j in batch]
        assert ids == sorted(ids)
        served[lane] += len(batch)
        share = [served[g] / weights[g] for g in weights]
        assert max(share) - min(share) <= 2, served
        for j in batch:
            j.ack()
    assert served == {"heavy": 30, "light": 10, "mid": 20}
    # max caps a turn below the weight; clearing the weight restores 1.
    one = queue.wclaim(max=1)
    assert len(one) == 1
    one[0].ack()
    queue.weight("heavy", None)
    assert queue.lane("heavy").weight == 1 and queue.lane("heavy").weight_is_default
    for j in queue.wclaim(max=100) + queue.wclaim(max=100) + queue.wclaim(max=100):
        j.ack()
    assert queue.verify() == []


def test_limit_caps_active_jobs(queue):
    queue.enqueue_many([("capped", str(i)) for i in range(10)] + [("free", str(i)) for i in range(4)])
    queue.limit("capped", 2)
    held = []
    while (job := queue.claim(lease=30)) is not None:
        held.append(job)
    counts = Counter(j.group for j in held)
    assert counts == {"capped": 2, "free": 4}
    lane = queue.lane("capped")
    assert (lane.active, lane.limit, lane.serviceable) == (2, 2, False)
    assert queue.verify() == []
    # Settling one capped job frees one place, and only one.
    next(j for j in held if j.group == "capped").ack()
    job = queue.claim()
    assert job is not None and job.group == "capped"
    assert queue.claim() is None
    # wclaim never passes the ceiling either.
    queue.limit("capped", 4)
    queue.weight("capped", 10)
    extra = queue.wclaim()
    assert len(extra) == 2 and queue.lane("capped").active == 4
    # Clearing the limit makes the whole backlog claimable.
    queue.limit("capped", None)
    rest = queue.wclaim()
    assert len(rest) == 5 and queue.lane("capped").depth == 0
    assert queue.verify() == []


def test_pause_and_resume(queue):
    queue.enqueue_many([("a", str(i)) for i in range(3)] + [("b", str(i)) for i in range(3)])
    queue.pause("a")
    queue.pause("a")  # idempotent
    assert queue.lane("a").paused and not queue.lane("a").serviceable
    got = []
    while (job := queue.claim()) is not None:
        got.append(job.group)
        job.ack()
    assert got == ["b", "b", "b"]
    assert queue.lane("a").depth == 3 and queue.stats().paused == 1
    queue.resume("a")
    assert not queue.lane("a").paused
    got = []
    while (job := queue.claim()) is not None:
        got.append(job.group)
        job.ack()
    assert got == ["a", "a", "a"]
    # Pausing an empty lane that has no jobs yet works, and holds new work.
    queue.pause("c")
    queue.enqueue("c", "x")
    assert queue.claim() is None
    queue.resume("c")
    queue.claim().ack()
    assert queue.verify() == []
