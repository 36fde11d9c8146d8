"""Flows in Python (docs/operations.md "Flows"): Celery's chain, group and
chord end to end on real workers, sync and asyncio; a flow built by name;
bad input refused with nothing written; delete and delete_flow."""

from __future__ import annotations

import asyncio

import pytest

import echomq
import echomq.aio
from echomq import chain, chord, group, step


def _drain(queue, handler, **kw):
    echomq.Worker(queue, handler, concurrency=kw.pop("concurrency", 2), idle_timeout=0.5, **kw).run(
        handle_signals=False
    )


def test_chain_runs_in_order_each_step_seeing_the_previous_result(queue):
    seen = []

    def handler(job):
        prev = job.child_results()
        seen.append((job.text, prev))
        n = int(prev[0]) if prev else 0
        return str(n + int(job.text)).encode()

    r = queue.enqueue_flow(chain(step("a", "1"), step("b", "10"), step("a", "100")))
    assert len(r) == 3 and r.root == max(r.values())
    assert queue.job(r.root).state == "waiting"
    _drain(queue, handler, concurrency=3)
    assert seen == [("1", []), ("10", [b"1"]), ("100", [b"11"])]
    assert queue.stats().acked_total == 3


def test_group_runs_in_parallel_and_waits_for_all(make_queue):
    queue = make_queue()
    queue.retain(keep=60)
    r = queue.enqueue_flow(group(*(step(f"lane{i}", str(i)) for i in range(5))))
    _drain(queue, lambda job: (job.text * 2).encode())
    done = r.wait(queue, timeout=5)
    assert [j.result for j in done] == [b"00", b"11", b"22", b"33", b"44"]


def test_chord_callback_gets_every_result_once(queue):
    calls = []

    def handler(job):
        if job.group == "sum":
            calls.append(job.child_results())
            return str(sum(int(x) for x in job.child_results())).encode()
        return job.payload

    r = queue.enqueue_flow(chord(group(*(step(f"t{i % 3}", str(i)) for i in range(10))), step("sum")))
    info = queue.flow_info(r.root)
    assert info.state == "waiting" and info.waiting == 10 and len(info.children) == 10
    _drain(queue, handler, concurrency=4)
    assert calls == [[str(i).encode() for i in range(10)]]


def test_chord_with_a_failing_member_by_policy(queue):
    got = {}

    def handler(job):
        if job.group == "cb":
            info = job.flow()
            got["states"] = sorted(c.state for c in info.children)
            got["errors"] = [c.error for c in info.children if c.state == "dead"]
            return b""
        if job.text == "bad":
            raise echomq.NoRetry("bad input")
        return b"ok"

    r = queue.enqueue_flow(
        chord([step("x", "good"), step("x", "bad", on_fail="continue"), step("y", "worse", on_fail="ignore")], step("cb"))
    )
    _drain(queue, lambda job: (_ for _ in ()).throw(echomq.NoRetry("worse")) if job.text == "worse" else handler(job))
    assert got["states"] == ["completed", "dead"]
    assert "bad input" in got["errors"][0]
    assert queue.job(r.root) is None  # ran and acked


def test_a_failing_chain_step_fails_the_rest(queue):
    r = queue.enqueue_flow(chain(step("a", "ok"), step("a", "bad"), step("a", "never")))

    def handler(job):
        if job.text == "bad":
            raise echomq.NoRetry("no")
        assert job.text != "never"
        return b"x"

    _drain(queue, handler)
    last = queue.job(r.root)
    assert last.state == "dead" and last.last_error.startswith(f"child {r['step1']} failed")


def test_a_flow_by_name(queue):
    f = echomq.Flow()
    f.add("report", "reports", b"R")
    f.add("fetch-eu", "eu", b"E", parent="report")
    f.add("fetch-us", "us", b"U", parent="report", on_fail="ignore")
    ids = queue.enqueue_flow(f, max_attempts=1)
    assert set(ids) == {"report", "fetch-eu", "fetch-us"}
    assert queue.flow_info(ids["fetch-eu"]).parent == ids["report"]
    assert queue.flow_info(ids["report"]).waiting == 2


@pytest.mark.parametrize(
    "build, error, words",
    [
        (lambda f: (f.add("a", "g", parent="b"), f.add("b", "g", parent="a")), echomq.InvalidArgument, "cycle"),
        (lambda f: f.add("a", "g", parent="nope"), echomq.InvalidArgument, "not in the flow"),
        (lambda f: (f.add("a", "g"), f.add("b", "g", parent="a", queue="elsewhere")), echomq.InvalidArgument, "one queue"),
        (lambda f: [f.add(f"j{i}", "g", parent="j0" if i else None) for i in range(1001)], echomq.TooLargeError, "bound"),
    ],
    ids=["cycle", "unknown id", "another queue", "over the bound"],
)
def test_bad_flows_are_refused_with_nothing_written(queue, resp, build, error, words):
    f = echomq.Flow()
    build(f)
    with pytest.raises(error, match=words):
        queue.enqueue_flow(f)
    assert resp.keys(f"emq:{{{queue.name}}}:*") == []


def test_delete_refuses_a_flow_job_and_delete_flow_removes_it(queue):
    r = queue.enqueue_flow(chord([step("a"), step("b")], step("c")))
    with pytest.raises(echomq.FlowError):
        queue.delete(r["job0"])
    assert queue.delete_flow(r["job1"]) == 3
    assert queue.stats().pending == 0


def test_cancel_a_chords_callback_cancels_the_group_that_has_not_run(queue):
    r = queue.enqueue_flow(chord([step("a"), step("b"), step("c")], step("sum")))
    held = queue.claim()  # one of the group is running
    assert held is not None
    assert queue.cancel(r.root, "not needed") == "waiting"
    for jid in r.values():
        j = queue.job(jid)
        if jid == held.id:
            assert j.state == "leased"
        else:
            assert j.state == "dead" and j.last_error == "canceled: not needed"
    assert queue.claim() is None
    assert queue.stats().canceled_total == 3
    held.ack()  # settles as canceled
    assert queue.job(held.id).state == "dead"


async def _acancel(url, name, jid):
    async with await echomq.aio.connect(url) as c:
        return await c.queue(name).cancel(jid, remove=True)


def test_asyncio_cancel_removes_a_waiting_flow(url, queue):
    r = queue.enqueue_flow(chain(step("a"), step("b"), step("c")))
    assert asyncio.run(_acancel(url, queue.name, r.root)) == "waiting"
    assert queue.stats().pending == 0
    assert all(queue.job(jid) is None for jid in r.values())


def test_asyncio_chain_group_chord(url, make_queue):
    queue = make_queue()

    async def main():
        async with await echomq.aio.connect(url) as c:
            aq = c.queue(queue.name)
            seen = []

            async def handler(job):
                prev = (await aq.flow_info(job.id)).results
                seen.append((job.group, prev))
                return (job.text + "".join(p.decode() for p in prev)).encode()

            ch = await aq.enqueue_flow(chain(step("a", "x"), step("b", "y")))
            cd = await aq.enqueue_flow(chord([step("c", "1"), step("d", "2")], step("e", "+")))
            gr = await aq.enqueue_flow(group(step("f", "p"), step("g", "q")))
            await echomq.aio.Worker(queue, handler, concurrency=2, idle_timeout=0.5).run()
            return ch, cd, gr, seen

    ch, cd, gr, seen = asyncio.run(main())
    by_lane = dict(seen)
    assert by_lane["b"] == [b"x"]
    assert by_lane["e"] == [b"1", b"2"]
    assert by_lane["f"] == [] and by_lane["g"] == []
    assert queue.stats().acked_total == 7


def test_cancel_of_a_waiting_parent_cancels_the_flow_below_it(queue):
    r = queue.enqueue_flow(chain(step("a", "1"), step("b", "2")))
    ids = [r[k] for k in r]
    waiting = [i for i in ids if queue.job(i).state == "waiting"]
    assert len(waiting) == 1
    assert queue.cancel(waiting[0]) == "waiting"
    assert all(queue.job(i).state == "dead" for i in ids)
    assert queue.verify() == []
