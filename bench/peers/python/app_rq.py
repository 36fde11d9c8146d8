"""rq's side of the bench: the job function, run by `rq worker-pool -n 8`."""

import record


def job(p: int, enq: float, sleep_ms: float, pad: str = "") -> None:
    record.run_sync(p, enq, sleep_ms)
