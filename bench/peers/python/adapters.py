"""How the bench enqueues into each library and runs its workers, the
library's documented way at concurrency 8.

An adapter has:
  name                     the row label
  enqueue(jobs)            jobs: [(producer, enqueue time, sleep ms, pad)];
                           the producer p is the tenant (EchoMQ lane "p<p>")
  worker_argv()            the command that runs the workers (one process
                           group, stopped with SIGTERM)
  close()
Each adapter's enqueue is called from one thread only; the bench makes
one adapter per enqueueing thread.
"""

import asyncio
import os
import sys
import threading
from typing import List, Sequence, Tuple

import record

Job = Tuple[int, float, float, str]
HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.path.dirname(sys.executable)
CONCURRENCY = 8
CHUNK = 1000


class EchoMQ:
    """The Python Worker (threads) or echomq.aio, with optional prefetch /
    target wait (None = the Worker's defaults)."""

    def __init__(self, url: str, kind: str = "threads", prefetch=None, target_ms=None, label=None):
        import echomq

        self.name = label or ("echomq Worker" if kind == "threads" else "echomq.aio Worker")
        self.url, self.kind, self.prefetch, self.target_ms = url, kind, prefetch, target_ms
        self.client = echomq.connect(url)
        self.q = self.client.queue("peers")

    def enqueue(self, jobs: Sequence[Job]) -> None:
        for i in range(0, len(jobs), CHUNK):
            self.q.enqueue_many([(f"p{j[0]}", record.payload(*j)) for j in jobs[i:i + CHUNK]])

    def worker_argv(self) -> List[str]:
        opt = lambda v: "-" if v is None else str(v)  # noqa: E731
        return [sys.executable, os.path.join(HERE, "app_echomq.py"), self.kind, self.url, "peers",
                opt(self.prefetch), opt(self.target_ms)]

    def close(self) -> None:
        self.client.close()


class RQ:
    name = "rq"

    def __init__(self, url: str):
        from redis import Redis
        from rq import Queue

        self.url = _redis_url(url)
        self.conn = Redis.from_url(self.url)
        self.q = Queue("peers", connection=self.conn)

    def enqueue(self, jobs: Sequence[Job]) -> None:
        from rq import Queue

        for i in range(0, len(jobs), CHUNK):
            self.q.enqueue_many([Queue.prepare_data("app_rq.job", args=j, result_ttl=0)
                                 for j in jobs[i:i + CHUNK]])

    def worker_argv(self) -> List[str]:
        # rq's pool of worker processes (each forks a work horse per job).
        return [os.path.join(BIN, "rq"), "worker-pool", "-n", str(CONCURRENCY), "-u", self.url,
                "--logging-level", "WARNING", "peers"]

    def close(self) -> None:
        self.conn.close()


class ARQ:
    name = "arq"

    def __init__(self, url: str):
        from arq import create_pool
        from arq.connections import RedisSettings

        self.url = _redis_url(url)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.pool = self._run(create_pool(RedisSettings.from_dsn(self.url)))

    def _run(self, coro):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def enqueue(self, jobs: Sequence[Job]) -> None:
        async def put(chunk):
            await asyncio.gather(*(self.pool.enqueue_job("job", *j) for j in chunk))

        for i in range(0, len(jobs), CHUNK):
            self._run(put(jobs[i:i + CHUNK]))

    def worker_argv(self) -> List[str]:
        return [os.path.join(BIN, "arq"), "app_arq.WorkerSettings"]

    def close(self) -> None:
        self._run(self.pool.aclose())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()


class Celery:
    name = "Celery"

    def __init__(self, url: str):
        self.url = _redis_url(url)
        os.environ["PEERS_URL"] = self.url
        from app_celery import app

        self.app = app

    def enqueue(self, jobs: Sequence[Job]) -> None:
        with self.app.producer_or_acquire() as producer:
            for j in jobs:
                self.app.send_task("job", args=j, producer=producer)

    def worker_argv(self) -> List[str]:
        return [os.path.join(BIN, "celery"), "-A", "app_celery", "worker", "--concurrency",
                str(CONCURRENCY), "--loglevel", "WARNING"]

    def close(self) -> None:
        self.app.close()


def _redis_url(url: str) -> str:
    return "redis://" + url.split("://", 1)[1]


LABELS = {
    "echomq": "echomq Worker", "aio": "echomq.aio Worker",
    "echomq-fixed120": "echomq Worker, prefetch 120 fixed",
    "echomq-bounded120": "echomq Worker, prefetch 120 bounded",
    "rq": "rq", "arq": "arq", "celery": "Celery",
}


def make(name: str, url: str):
    """An adapter by its name in --libs."""
    if name == "echomq":
        return EchoMQ(url, "threads")
    if name == "aio":
        return EchoMQ(url, "aio")
    if name == "echomq-fixed120":  # fixed deep prefetch: the 34 ms
        return EchoMQ(url, "threads", 120, 0, LABELS[name])
    if name == "echomq-bounded120":
        return EchoMQ(url, "threads", 120, None, LABELS[name])
    if name == "rq":
        return RQ(url)
    if name == "arq":
        return ARQ(url)
    if name == "celery":
        return Celery(url)
    raise SystemExit(f"unknown library {name!r}")
