"""arq's side of the bench: run by `arq app_arq.WorkerSettings` (max_jobs 8)."""

import os

from arq.connections import RedisSettings

import record


async def job(ctx, p: int, enq: float, sleep_ms: float, pad: str = "") -> None:
    await record.run_async(p, enq, sleep_ms)


class WorkerSettings:
    functions = [job]
    redis_settings = RedisSettings.from_dsn(os.environ["PEERS_URL"])
    max_jobs = int(os.environ.get("PEERS_CONCURRENCY", "8"))
    keep_result = 0  # no result kept: the other libraries keep none either
    poll_delay = 0.5  # arq's default
