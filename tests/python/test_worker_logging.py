"""What the Worker logs (bindings/python/README.md, "Logging"): the
`echomq.worker` logger; a failed attempt that will be retried at INFO, one
that dead-letters its job at WARNING."""

from __future__ import annotations

import logging

import echomq


def test_retried_attempts_are_info_and_a_dead_letter_is_a_warning(make_queue, caplog):
    q = make_queue()
    jid = q.enqueue("acme", b"x", max_attempts=3)

    def handler(job):
        raise ValueError("downstream said no")

    with caplog.at_level(logging.DEBUG, logger="echomq.worker"):
        echomq.Worker(q, handler, concurrency=1, retry_in=0, idle_timeout=1.0).run(handle_signals=False)
    assert q.job(jid).state == "dead"
    lines = [(r.levelno, r.getMessage()) for r in caplog.records
             if r.name == "echomq.worker" and "failed" in r.getMessage()]
    assert lines == [
        (logging.INFO, f"job {jid} (lane 'acme', attempt 1/3) failed, will be retried: ValueError: downstream said no"),
        (logging.INFO, f"job {jid} (lane 'acme', attempt 2/3) failed, will be retried: ValueError: downstream said no"),
        (logging.WARNING, f"job {jid} (lane 'acme', attempt 3/3) failed, dead-lettered: ValueError: downstream said no"),
    ], lines
