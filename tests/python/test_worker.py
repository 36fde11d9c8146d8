"""The Worker: concurrency, exactly-once acks, failures, lease keeping and a
graceful SIGTERM that loses nothing."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

import echomq
from emq_helpers import python_env, wait_for

HERE = Path(__file__).resolve().parent


def _done(out: Path) -> list:
    """Ids of the jobs whose handler finished, from worker_proc.py's file."""
    return [int(line) for line in out.read_text().splitlines() if line.isdigit()]


def test_four_slots_ack_every_job_exactly_once(queue):
    # 2,000 jobs over 20 lanes, skewed: lane 0 holds half of them.
    jobs = [("PLR00", f"0-{i}") for i in range(1000)]
    jobs += [(f"PLR{1 + i % 19:02d}", f"{i}") for i in range(1000)]
    ids = queue.enqueue_many(jobs)
    seen = []
    threads = set()
    lock = threading.Lock()

    def handler(job):
        with lock:
            seen.append(job.id)
            threads.add(threading.get_ident())

    worker = echomq.Worker(queue, handler, concurrency=4, idle_timeout=1.0)
    stats = worker.run(handle_signals=False)
    counts = Counter(seen)
    assert len(seen) == 2000 and set(counts) == set(ids)
    assert max(counts.values()) == 1, "a job was handled twice"
    assert len(threads) == 4, "all four slots worked"
    assert (stats.acked, stats.failed, stats.lost, stats.errors) == (2000, 0, 0, 0)
    s = queue.stats()
    assert (s.acked_total, s.claimed_total, s.pending, s.leased) == (2000, 2000, 0, 0)
    assert queue.verify() == []


def test_raising_handler_retries_then_dead_letters(queue):
    queue.enqueue_many([("a", "bad"), ("b", "flaky"), ("c", "good")], max_attempts=3)
    calls = Counter()
    lock = threading.Lock()

    def handler(job):
        with lock:
            calls[job.text] += 1
        if job.text == "bad":
            raise RuntimeError(f"cannot score attempt {job.attempt}")
        if job.text == "flaky" and job.attempt == 1:
            raise KeyError("first time unlucky")

    stats = echomq.Worker(queue, handler, concurrency=2, retry_in=0, idle_timeout=2.0).run(handle_signals=False)
    assert calls == {"bad": 3, "flaky": 2, "good": 1}
    assert (stats.acked, stats.failed, stats.retried, stats.dead) == (2, 4, 3, 1)
    dead = queue.dead()
    assert len(dead) == 1 and dead[0].payload == b"bad" and dead[0].attempt == 3
    assert dead[0].last_error == "RuntimeError: cannot score attempt 3"
    s = queue.stats()
    assert (s.pending, s.leased, s.dead, s.acked_total) == (0, 0, 1, 2)
    assert queue.verify() == []


def test_long_job_keeps_its_lease(queue):
    queue.enqueue("a", "slow")
    calls = []

    def handler(job):
        calls.append(job.attempt)
        time.sleep(2.0)  # more than three leases

    stats = echomq.Worker(queue, handler, concurrency=2, lease=0.6, idle_timeout=0.5).run(handle_signals=False)
    assert calls == [1], "the job was never redelivered"
    assert (stats.acked, stats.lost) == (1, 0)
    assert queue.stats().claimed_total == 1
    assert queue.verify() == []


def test_stop_finishes_running_jobs(queue):
    queue.enqueue_many([(f"g{i % 4}", str(i)) for i in range(8)])
    started = threading.Event()
    finished = []

    def handler(job):
        started.set()
        time.sleep(0.5)
        finished.append(job.id)

    worker = echomq.Worker(queue, handler, concurrency=4, wait=1)
    worker.start()
    assert started.wait(5)
    t0 = time.monotonic()
    worker.stop()
    assert worker.join(10)
    assert time.monotonic() - t0 < 3.0, "idle slots notice the stop within their wait"
    s = queue.stats()
    assert s.leased == 0, "nothing is left under lease"
    assert worker.stats.acked == len(finished) == s.acked_total
    assert s.pending == 8 - len(finished)
    assert queue.verify() == []


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_signal_mid_run_loses_nothing(url, queue, tmp_path, sig):
    n = 1000
    ids = queue.enqueue_many([(f"PLR{i % 20:02d}", str(i)) for i in range(n)])
    out = tmp_path / "done.txt"
    out.touch()
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "worker_proc.py"), url, queue.name, str(out), "0.01"],
        env=python_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert wait_for(lambda: len(_done(out)) >= 150, timeout=30), "worker made no progress"
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, stderr
    assert "stopped" in stdout, stdout
    done = _done(out)
    s = queue.stats()
    # Graceful: every job the handler finished was acked, nothing is held,
    # and everything else is still waiting in its lane.
    assert s.leased == 0
    assert len(done) == len(set(done)) == s.acked_total < n
    assert s.pending == n - s.acked_total
    assert queue.verify() == []
    # A second run drains the rest: all jobs are done, none lost.
    rest = []
    echomq.Worker(queue, lambda j: rest.append(j.id), concurrency=4, idle_timeout=0.5).run(handle_signals=False)
    assert sorted(done + rest) == sorted(ids)
    assert queue.stats().acked_total == n
    assert queue.verify() == []


def test_second_signal_stops_waiting_and_the_job_comes_back(url, queue, tmp_path):
    jid = queue.enqueue("a", "endless")
    out = tmp_path / "done.txt"
    out.touch()
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "worker_proc.py"), url, queue.name, str(out), "60", "1"],
        env=python_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert wait_for(lambda: "start" in out.read_text(), timeout=30), "the handler never started"
        proc.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        assert proc.poll() is None, "the first signal waits for the running handler"
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=15)
        assert time.monotonic() - t0 < 5.0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert _done(out) == []
    # The abandoned job was never acked: it comes back when its lease expires.
    job = queue.claim(wait=5)
    assert job is not None and job.id == jid and job.attempt == 2
    job.ack()
    assert queue.verify() == []
