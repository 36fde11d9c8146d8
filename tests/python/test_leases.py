"""Leases: expiry and stale-holder refusal, extension, retries, dead letters."""

from __future__ import annotations

import copy
import time

import pytest

import echomq


def test_expired_lease_comes_back_and_stale_ack_is_refused(queue, resp):
    jid = queue.enqueue("a", "work")
    first = queue.claim(lease=0.2)
    assert first.id == jid and first.attempt == 1
    time.sleep(0.35)
    # The claim itself brings the expired lease back (no daemon needed).
    second = queue.claim(lease=10)
    assert second is not None and second.id == jid and second.attempt == 2
    assert second.token != first.token  # every delivery gets a new token
    before = resp.snapshot(f"emq:{{{queue.name}}}:*")
    with pytest.raises(echomq.StaleLeaseError) as err:
        first.ack()
    assert err.value.code == -4
    with pytest.raises(echomq.StaleLeaseError):
        first.extend(10)
    with pytest.raises(echomq.StaleLeaseError):
        first.fail("late")
    assert resp.snapshot(f"emq:{{{queue.name}}}:*") == before, "a stale holder changed nothing"
    second.ack()
    with pytest.raises(echomq.StaleLeaseError, match="settled already"):
        second.ack()
    s = queue.stats()
    assert (s.acked_total, s.leased, s.pending) == (1, 0, 0)
    assert queue.verify() == []


def test_extend_keeps_the_lease(queue):
    queue.enqueue("a", "slow")
    job = queue.claim(lease=0.3)
    old = job.lease_until
    new = job.extend(2)
    assert new > old and job.lease_until == new
    time.sleep(0.45)  # past the first lease, within the extended one
    assert queue.claim() is None
    job.ack()
    assert queue.verify() == []


def test_retry_then_dead_letter_then_redrive(queue):
    jid = queue.enqueue("a", "doomed", max_attempts=2)
    job = queue.claim()
    assert job.max_attempts == 2
    assert job.fail("first try", retry_in=0) == echomq.FailOutcome.RETRY
    job = queue.claim()
    assert job.id == jid and job.attempt == 2
    assert job.fail(ValueError("boom"), retry_in=0) == echomq.FailOutcome.DEAD
    assert queue.claim() is None
    s = queue.stats()
    assert (s.dead, s.pending, s.failed_total, s.dead_total) == (1, 0, 2, 1)
    dead = queue.dead()
    assert [d.id for d in dead] == [jid]
    assert dead[0].last_error == "boom" and dead[0].dead_at is not None
    assert dead[0].payload == b"doomed"
    assert queue.redrive([jid, 999999]) == 1  # unknown ids are skipped
    assert queue.stats().dead == 0
    job = queue.claim()
    assert job.id == jid and job.attempt == 1  # the first of a fresh budget
    job.ack()
    assert queue.verify() == []


def test_fail_with_delay_and_redrive_all(queue):
    queue.enqueue("a", "x")
    job = queue.claim()
    assert job.fail("later", retry_in=0.3) == echomq.FailOutcome.DELAYED
    assert queue.claim() is None and queue.stats().delayed == 1
    job = queue.claim(wait=3)
    assert job is not None and job.attempt == 2
    job.ack()
    for i in range(3):
        queue.enqueue("b", str(i), max_attempts=1)
        queue.claim().fail("no", retry_in=0)
    assert queue.stats().dead == 3
    assert queue.redrive() == 3
    assert queue.stats().pending == 3
    assert queue.verify() == []


def test_expired_lease_out_of_attempts_goes_dead(queue):
    queue.enqueue("a", "x", max_attempts=1)
    queue.claim(lease=0.1)
    time.sleep(0.25)
    assert queue.claim() is None
    s = queue.stats()
    assert (s.dead, s.leased) == (1, 0)
    assert queue.verify() == []


def test_ack_many_settles_a_wclaim_in_one_call(queue):
    """ack_many acks every job of a wclaim; refused ones come back unchanged."""
    for i in range(5):
        queue.enqueue("heavy", b"h%d" % i)
    queue.weight("heavy", 4)
    jobs = queue.wclaim(lease=60, max=10)
    assert len(jobs) == 4
    stale = jobs[2]
    # A view of job 2 with a token that is not its current delivery's: stale.
    fake = copy.copy(stale)
    fake.token += 1
    refused = queue.ack_many(jobs[:2] + [fake])
    assert [j.id for j in refused] == [stale.id]
    st = queue.stats()
    assert st.acked_total == 2
    assert st.leased == 2
    assert queue.ack_many(jobs[2:]) == []
    assert queue.stats().leased == 0
    assert queue.verify() == []


def test_claimed_job_carries_the_previous_failure_reason(queue):
    queue.enqueue("a", "flaky", max_attempts=3)
    first = queue.claim(lease=30)
    assert first.last_error == ""
    first.fail("smtp down", retry_in=0)
    second = queue.claim(lease=30)
    assert second.id == first.id and second.attempt == 2 and second.token != first.token
    assert second.last_error == "smtp down"
    second.ack()
    assert queue.verify() == []
