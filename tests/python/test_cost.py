"""Cost mode from Python: reported costs through Job.report_cost (worker) and
Queue.charge (claimed by hand), against a real server."""

import time

import pytest

import echomq


def test_cost_mode_shares_reported_units(queue):
    queue.cost_mode(20)
    assert queue.cost_quantum == 20
    queue.enqueue_many([("cheap", "c")] * 400 + [("dear", "d")] * 40)
    units = {"cheap": 1, "dear": 10}
    spent = {"cheap": 0, "dear": 0}
    order = []

    def handler(job):
        job.report_cost(units[job.group])
        spent[job.group] += units[job.group]
        order.append(job.group)

    # One thread, one slot: each charge lands before its lane's next turn.
    echomq.Worker(queue, handler, concurrency=1, prefetch=1, idle_timeout=0.5).run(handle_signals=False)
    # Everything ran; while both lanes had work, cost stayed level (the
    # dear lane's 40 jobs = 400 units, the cheap lane's 400 jobs = 400 units).
    assert spent == {"cheap": 400, "dear": 400}
    # Counted by jobs the two would alternate (40 dear among the first 80);
    # by cost, dear gets about one turn in eleven.
    assert order[:110].count("dear") <= 20
    assert queue.verify() == []


def test_cost_mode_order_by_cost_with_charge(queue):
    queue.cost_mode(5)
    queue.enqueue_many([("a", "x")] * 10 + [("b", "y")] * 10)
    order = []
    for _ in range(12):
        job = queue.claim()
        order.append(job.group)
        queue.charge(job.group, 10 if job.group == "a" else 1)
        job.ack()
    # a costs 10 a job, b 1: b gets about ten turns for each of a's.
    assert order.count("b") >= 9
    with pytest.raises(echomq.InvalidArgument):
        queue.charge("a", -1)
    with pytest.raises(echomq.InvalidArgument):
        queue.cost_mode(0)
    queue.cost_mode(None)
    assert queue.cost_quantum == 0
    assert queue.verify() == []


def test_a_result_and_a_reported_cost_both_count(queue, resp):
    # A handler that returns a result and reports its cost: the result is
    # kept and the lane charged the 7 units (not the measured µs, 20 ms and
    # more here): both travel in the one report of the job.
    queue.cost_mode(1000)
    queue.retain(last=10)
    jid = queue.enqueue("g", "a")

    def handler(job):
        time.sleep(0.02)
        job.report_cost(7)
        return b"res"

    echomq.Worker(queue, handler, concurrency=1, prefetch=1, idle_timeout=0.3).run(handle_signals=False)
    assert queue.job(jid).result == b"res"
    # The charge came after the claim that emptied the lane, so its v stays.
    assert float(resp("HGET", "emq:{%s}:gvt" % queue.name, "g")) == 7
def test_cost_estimate_stands_in_until_the_real_cost(make_queue, resp):
    # Charged at the claim: with quantum 10, a lane whose job is estimated
    # at 100 sits out after one claim while a lane without estimates goes on.
    q = make_queue("order")
    q.cost_mode(10)
    q.enqueue_many([("big", "b")] * 3, cost_estimate=100)
    q.enqueue_many([("small", "s")] * 5)
    held = [q.claim() for _ in range(5)]
    assert [j.group for j in held] == ["big"] + ["small"] * 4
    for j in held:
        j.ack()

    # The real cost replaces it: the worker engine settles each job with a
    # charge of 2 units, and each big job's estimate is refunded.
    q = make_queue("refund")
    q.cost_mode(1000)  # nothing sits out: v is the sum of the charges
    est_key, gvt_key = f"emq:{{{q.name}}}:est", f"emq:{{{q.name}}}:gvt"
    ids = q.enqueue_many([("big", "b")] * 3, cost_estimate=100)
    q.enqueue_many([("other", "o")] * 3)
    assert resp("HGET", est_key, str(ids[0])) == b"100"
    first = q.claim()
    assert first.group == "big"
    assert float(resp("HGET", gvt_key, "big")) == 100  # before any ack
    first.ack()  # no charge: the estimate stood in and stays charged
    assert float(resp("HGET", gvt_key, "big")) == 100
    assert resp("HLEN", est_key) == 2  # the acked job's went with its record

    def handler(job):
        job.report_cost(2)

    echomq.Worker(q, handler, concurrency=1, prefetch=1, idle_timeout=0.3).run(handle_signals=False)
    assert resp("EXISTS", est_key) == 0
    # 100 + 2 * 2 with the estimates refunded (2 * 102 more without).
    assert float(resp("HGET", gvt_key, "big")) == 104


def test_cost_estimate_is_checked(queue, resp):
    with pytest.raises(echomq.InvalidArgument):
        queue.enqueue("g", "p", cost_estimate=0)
    with pytest.raises(echomq.InvalidArgument):
        queue.enqueue_many([("g", "p")], cost_estimate=2**53)
    with pytest.raises(TypeError):
        queue.enqueue("g", "p", cost_estimate="5")
    assert resp("EXISTS", f"emq:{{{queue.name}}}:seq") == 0  # nothing was sent
    queue.enqueue("g", "p", cost_estimate=5)  # outside cost mode: checked, not kept
    assert resp("EXISTS", f"emq:{{{queue.name}}}:est") == 0
