"""Durability waits: connect(..., wait_replicas=N, wait_aof=True) against a
real replica of the session's server. A confirmed write is silent; one not
confirmed in time returns its result and warns with UnconfirmedWarning."""

from __future__ import annotations

import warnings
from typing import Iterator

import pytest

import echomq
from emq_helpers import wait_for
from emq_valkey import Resp, Server


@pytest.fixture(scope="module")
def replica(url: str) -> Iterator[str]:
    """A second server, replicating the session's server while this module's
    tests run (one full sync: the primary delays it by repl-diskless-sync-delay)."""
    with Server(prefix="emq-pytest-replica-") as s:
        host, port = url.rsplit("/", 1)[-1].rsplit(":", 1)
        with Resp(s.url) as r:
            r("REPLICAOF", host, port)
            assert wait_for(lambda: b"master_link_status:up" in r("INFO", "replication"))
        yield s.url


def test_confirmed_writes_are_silent(url, replica, make_queue):
    with echomq.connect(url, wait_replicas=1, wait_timeout=5) as c:
        q = c.queue(make_queue().name)
        with warnings.catch_warnings():
            warnings.simplefilter("error", echomq.UnconfirmedWarning)
            jid = q.enqueue("g", "x")
            job = q.claim()
            assert job is not None and job.id == jid
            job.ack()
        with Resp(replica) as r:
            assert r("HLEN", f"emq:{{{q.name}}}:jobs") == 0  # the ack is on the replica


def test_unconfirmed_write_returns_its_result_and_warns(url, replica, make_queue):
    # Two replicas asked for, one there: nothing is ever confirmed.
    with echomq.connect(url, wait_replicas=2, wait_timeout=0.1) as c:
        q = c.queue(make_queue().name)
        with pytest.warns(echomq.UnconfirmedWarning, match="1 of 2 replicas"):
            jid = q.enqueue("g", "x")
        assert isinstance(jid, int) and q.stats().pending == 1  # the enqueue happened
        with warnings.catch_warnings():
            warnings.simplefilter("error", echomq.UnconfirmedWarning)
            assert q.stats().pending == 1  # reads never wait
        with pytest.warns(echomq.UnconfirmedWarning):
            job = q.claim()
        assert job is not None and job.id == jid
        with pytest.warns(echomq.UnconfirmedWarning):
            job.ack()
        with pytest.raises(echomq.StaleLeaseError):
            job.ack()  # the first ack happened: the job is settled


def test_wait_aof_without_appendonly_warns(url, make_queue):
    with echomq.connect(url, wait_aof=True) as c:
        q = c.queue(make_queue().name)
        with pytest.warns(echomq.UnconfirmedWarning, match="refused"):
            q.enqueue("g", "x")
        assert q.stats().pending == 1
        with pytest.warns(echomq.UnconfirmedWarning):
            q.claim().ack()


def test_worker_counts_unconfirmed_round_trips(url, replica, make_queue):
    with echomq.connect(url, wait_replicas=2, wait_timeout=0.05) as c:
        q = c.queue(make_queue().name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", echomq.UnconfirmedWarning)
            for i in range(3):
                q.enqueue("g", f"j{i}")
        stats = echomq.Worker(q, lambda job: None, concurrency=1, idle_timeout=0.5).run(handle_signals=False)
        assert stats.acked == 3 and stats.errors == 0
        assert stats.unconfirmed > 0


def test_bad_durability_options():
    with pytest.raises(echomq.InvalidArgument):
        echomq.Client(wait_replicas=-1)
    with pytest.raises(echomq.InvalidArgument):
        echomq.Client(wait_replicas=101)
    with pytest.raises(echomq.InvalidArgument):
        echomq.Client(wait_timeout=61)
    with pytest.raises(TypeError):
        echomq.Client(wait_replicas=True)
