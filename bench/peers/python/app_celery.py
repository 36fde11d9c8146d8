"""Celery's side of the bench (Redis transport): run by
`celery -A app_celery worker --concurrency 8` (the prefork pool)."""

import os

from celery import Celery

import record

app = Celery("peers", broker=os.environ["PEERS_URL"])
app.conf.task_ignore_result = True  # no result backend: nothing kept per job
app.conf.worker_hijack_root_logger = False


@app.task(name="job")
def job(p: int, enq: float, sleep_ms: float, pad: str = "") -> None:
    record.run_sync(p, enq, sleep_ms)
