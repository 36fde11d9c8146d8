"""python3 -m echomq worker: the rq-style command line around Worker."""

from __future__ import annotations

import subprocess
import sys

from emq_helpers import python_env


def test_module_worker_burst(url, queue, tmp_path):
    queue.enqueue_many([(f"PLR{i % 3}", f"guess{i}") for i in range(30)] + [("PLR9", "fail")], max_attempts=2)
    out = tmp_path / "out.txt"
    env = python_env()
    env["EMQ_TEST_OUT"] = str(out)
    proc = subprocess.run(
        [sys.executable, "-m", "echomq", "worker", url, queue.name, "emq_helpers:shout", "-c", "2",
         "--retry-in", "0", "--burst", "0.5"],
        env=env, capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "acked=30 failed=2 retried=1 dead=1" in proc.stdout, proc.stdout
    assert "told to fail" in proc.stderr  # the failure is logged
    assert sorted(out.read_bytes().split()) == sorted(f"GUESS{i}".encode() for i in range(30))
    assert [j.payload for j in queue.dead()] == [b"fail"]
    assert queue.verify() == []


def test_module_worker_bad_handler(url, queue):
    proc = subprocess.run(
        [sys.executable, "-m", "echomq", "worker", url, queue.name, "nohandler"],
        env=python_env(), capture_output=True, text=True, timeout=60,
    )
    assert proc.returncode != 0 and "module:function" in proc.stderr
