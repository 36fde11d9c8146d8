"""Round trips of the plain API: enqueue, claim, ack, batch, inspection."""

from __future__ import annotations

import echomq


def test_version_matches_header():
    assert echomq.version() == echomq.__version__
    assert echomq._echomq.version() == echomq._echomq.HEADER_VERSION


def test_context_manager_closes(url):
    with echomq.connect(url) as c:
        c.ping()
        assert c.connected
    assert c.closed
    try:
        c.ping()
    except echomq.ConnectionError:
        pass
    else:
        raise AssertionError("a closed client must refuse calls")


def test_enqueue_claim_ack_roundtrip(queue):
    payload = b"\x00binary\xffpayload\x00"
    jid = queue.enqueue("PLR1", payload)
    assert isinstance(jid, int) and jid > 0
    job = queue.claim(lease=10)
    assert job is not None
    assert (job.id, job.group, job.payload) == (jid, "PLR1", payload)
    assert job.attempt == 1 and 1 <= job.token < 2**53
    assert job.lease_until is not None and job.lease_until > job.enqueued_at
    assert queue.stats().leased == 1
    job.ack()
    assert queue.claim() is None
    s = queue.stats()
    assert (s.pending, s.leased, s.acked_total, s.enqueued_total) == (0, 0, 1, 1)
    assert queue.verify() == []


def test_str_payload_is_utf8(queue):
    queue.enqueue("PLR😀", "héllo 🎯")
    job = queue.claim()
    assert job.group == "PLR😀"
    assert job.payload == "héllo 🎯".encode() and job.text == "héllo 🎯"
    job.ack()
    assert queue.verify() == []


def test_ids_grow_in_mint_order(queue):
    ids = [queue.enqueue("a", str(i)) for i in range(5)]
    assert ids == sorted(ids) and len(set(ids)) == 5
    got = [queue.claim().id for _ in range(5)]
    assert got == ids  # one lane: FIFO in mint order
    assert queue.verify() == []


def test_enqueue_many_one_round_trip(queue):
    jobs = [(f"g{i % 3}", f"p{i}") for i in range(30)]
    ids = queue.enqueue_many(jobs)
    assert len(ids) == 30 and ids == sorted(ids)
    assert queue.enqueue_many([]) == []
    s = queue.stats()
    assert s.pending == 30 and s.enqueued_total == 30
    assert {lane.group: lane.depth for lane in queue.lanes()} == {"g0": 10, "g1": 10, "g2": 10}
    assert queue.verify() == []


def test_fused_ack_and_claim(queue):
    ids = queue.enqueue_many([("a", "1"), ("a", "2"), ("b", "3")])
    job = queue.claim()
    seen = []
    while job is not None:
        seen.append(job.id)
        job = job.ack_and_claim()
    assert sorted(seen) == ids
    s = queue.stats()
    assert (s.acked_total, s.pending, s.leased) == (3, 0, 0)
    assert queue.verify() == []


def test_delay_holds_a_job_back(queue):
    queue.enqueue("a", "later", delay=0.3)
    assert queue.claim() is None
    assert queue.stats().delayed == 1
    job = queue.claim(wait=3)
    assert job is not None and job.payload == b"later"
    job.ack()
    assert queue.verify() == []


def test_lane_figures_and_paging(queue):
    for i in range(25):
        queue.enqueue(f"lane{i:02d}", "x")
    queue.weight("lane03", 5)
    queue.limit("lane04", 2)
    info = queue.lane("lane03")
    assert (info.group, info.depth, info.weight, info.weight_is_default) == ("lane03", 1, 5, False)
    assert queue.lane("lane04").limit == 2
    assert queue.lane("lane05").limit is None
    unknown = queue.lane("nobody")
    assert (unknown.depth, unknown.active) == (0, 0)
    names = [lane.group for lane in queue.lanes(page_size=7)]
    assert names == [f"lane{i:02d}" for i in range(25)]
    assert [lane.group for lane in queue.lanes(after="lane20")] == [f"lane{i}" for i in range(21, 25)]
    assert queue.verify() == []


def test_defaults(queue):
    queue.defaults(weight=2, limit=3, max_attempts=7)
    s = queue.stats()
    assert (s.default_weight, s.default_limit, s.default_max_attempts) == (2, 3, 7)
    queue.enqueue("a", "x")
    job = queue.claim()
    assert job.max_attempts == 7
    job.ack()
    queue.defaults(limit=None)  # only the limit changes
    s = queue.stats()
    assert (s.default_weight, s.default_limit, s.default_max_attempts) == (2, None, 7)
    assert queue.verify() == []


def test_one_client_shared_by_threads_is_serialised(queue):
    import threading

    ids = []
    lock = threading.Lock()

    def producer(t):
        mine = [queue.enqueue(f"t{t}", f"{t}-{i}") for i in range(150)]
        with lock:
            ids.extend(mine)

    threads = [threading.Thread(target=producer, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(ids) == len(set(ids)) == 600
    assert queue.stats().pending == 600
    assert queue.verify() == []
