"""A job's name and headers (its kind and metadata): kept with the job
through a claim, a retry and the dead letters, shown by lookups; bad ones
are refused before anything is written."""

from __future__ import annotations

import pytest

import echomq

HEADERS = {"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "tenant": "acme"}


def test_name_and_headers_go_with_the_job(make_queue):
    q = make_queue()
    jid = q.enqueue("a", "x", name="email:send", headers=HEADERS, max_attempts=2)
    plain = q.enqueue("b", "y")
    looked = q.job(jid)
    assert (looked.name, looked.headers) == ("email:send", HEADERS)
    job = q.claim(60)
    assert (job.id, job.name, job.headers) == (jid, "email:send", HEADERS)
    job.fail("once", retry_in=0)
    other = q.claim(60)
    assert (other.id, other.name, other.headers) == (plain, "", {})
    other.ack()
    again = q.claim(60)
    assert (again.id, again.name, again.headers) == (jid, "email:send", HEADERS)
    again.fail("twice", retry_in=0)
    [dead] = q.dead()
    assert (dead.name, dead.headers) == ("email:send", HEADERS)
    ids = q.enqueue_many([("a", "1"), ("c", "2")], name="report")
    assert [q.job(i).name for i in ids] == ["report", "report"]


@pytest.mark.parametrize(
    "options, error",
    [
        ({"name": "n" * (echomq.JOB_NAME_MAX + 1)}, echomq.TooLargeError),
        ({"name": "tab\there"}, echomq.InvalidArgument),
        ({"name": ""}, echomq.InvalidArgument),
        ({"headers": {"k": "a\nb"}}, echomq.InvalidArgument),
        ({"headers": {"": "v"}}, echomq.InvalidArgument),
        ({"headers": {"k": 1}}, echomq.InvalidArgument),
        ({"headers": {"k": "v" * echomq.HEADERS_BYTES_MAX}}, echomq.TooLargeError),
        ({"headers": {f"k{i}": "v" for i in range(echomq.HEADERS_MAX + 1)}}, echomq.TooLargeError),
    ],
)
def test_bad_names_and_headers_write_nothing(make_queue, options, error):
    q = make_queue()
    with pytest.raises(error):
        q.enqueue("a", "x", **options)
    assert q.stats().enqueued_total == 0


def test_batch_entries_carry_their_own_name_and_headers(make_queue):
    q = make_queue()
    ids = q.enqueue_many(
        [
            {"group": "a", "payload": "1", "name": "email:send", "headers": HEADERS},
            ("a", "2"),
            {"group": "b", "payload": "3", "key": "k3", "headers": {"tenant": "globex"}},
            {"group": "b", "payload": "4"},
        ]
    )
    got = [(q.job(i).name, q.job(i).headers) for i in ids]
    assert got == [("email:send", HEADERS), ("", {}), ("", {"tenant": "globex"}), ("", {})]
    assert q.enqueue_many([{"group": "b", "payload": "again", "key": "k3"}])[0].duplicate
    # With the call's name and headers: an entry's own name wins, its headers merge over the call's.
    ids = q.enqueue_many(
        [{"group": "a", "payload": "5", "name": "own", "headers": {"tenant": "globex"}}, ("a", "6")],
        name="report",
        headers=HEADERS,
    )
    mine = dict(HEADERS, tenant="globex")
    assert [(q.job(i).name, q.job(i).headers) for i in ids] == [("own", mine), ("report", HEADERS)]


@pytest.mark.parametrize(
    "entry, error",
    [
        ({"group": "a", "payload": "x", "name": "n" * (echomq.JOB_NAME_MAX + 1)}, echomq.TooLargeError),
        ({"group": "a", "payload": "x", "name": "tab\there"}, echomq.InvalidArgument),
        ({"group": "a", "payload": "x", "name": ""}, echomq.InvalidArgument),
        ({"group": "a", "payload": "x", "headers": {"": "v"}}, echomq.InvalidArgument),
        ({"group": "a", "payload": "x", "headers": {"k": "v" * echomq.HEADERS_BYTES_MAX}}, echomq.TooLargeError),
        ({"group": "a", "payload": "x", "lane": "b"}, echomq.InvalidArgument),
        ({"payload": "x"}, echomq.InvalidArgument),
    ],
)
def test_a_bad_batch_entry_writes_nothing(make_queue, entry, error):
    q = make_queue()
    with pytest.raises(error):
        q.enqueue_many([("a", "fine"), entry])
    assert q.stats().enqueued_total == 0
