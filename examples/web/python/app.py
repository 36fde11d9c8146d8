"""A web service that enqueues a task from a request and awaits its result
(Starlette, echomq.aio).

    ECHOMQ_URL=valkey://127.0.0.1:6379 python3 app.py worker          # runs the tasks
    ECHOMQ_URL=valkey://127.0.0.1:6379 python3 app.py web --port 8000  # serves HTTP

    curl -X POST localhost:8000/reports -d '{"tenant": "acme", "rows": [3, 4]}'
    {"job": 1, "tenant": "acme", "total": 7}

POST /reports enqueues one `report` task on the tenant's lane (tenants are
served fairly, one lane each) and awaits its result, up to ?wait= seconds
(default 10): 200 with the result, 202 with the job id if it is not done
by then (GET /reports/{id} looks again), 422 when the task failed, 400 on a
bad request. The web process never runs a task; any number of `worker`
processes do.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys

import echomq
import echomq.aio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

URL = os.environ.get("ECHOMQ_URL", "valkey://127.0.0.1:6379")
tasks = echomq.aio.App(URL, queue="reports")


@tasks.task(name="report", lane=lambda tenant, rows: tenant, max_attempts=3, timeout=30)
async def report(tenant: str, rows: list) -> dict:
    await asyncio.sleep(0)  # a real report would query, render, upload...
    if not rows or any(not isinstance(r, (int, float)) for r in rows):
        raise echomq.DiscardJob("no rows, or not numbers")  # no retry can fix it
    return {"tenant": tenant, "total": sum(rows)}


async def create(request: Request) -> JSONResponse:
    try:
        body = await request.json()
        tenant, rows = body["tenant"], body["rows"]
        wait = float(request.query_params.get("wait", "10"))
        if not isinstance(tenant, str) or not tenant or not isinstance(rows, list) or not 0 <= wait <= 60:
            raise ValueError
    except (ValueError, KeyError, TypeError):
        return JSONResponse({"error": 'send {"tenant": "...", "rows": [...]}, and ?wait=0..60'}, 400)
    r = await report.enqueue(tenant, rows)
    return await _outcome(r, wait)


async def show(request: Request) -> JSONResponse:
    try:
        r = echomq.aio.TaskResult(report, int(request.path_params["id"]))
    except ValueError:
        return JSONResponse({"error": "a job id is a number"}, 400)
    return await _outcome(r, 0)


async def _outcome(r: echomq.aio.TaskResult, wait: float) -> JSONResponse:
    """The task's value (200), not yet (202), its failure (422) or an
    unknown id (404)."""
    try:
        value = await r.wait(timeout=wait)
    except echomq.JobPendingError:
        return JSONResponse({"job": r.id, "state": "pending"}, 202)
    except echomq.TaskFailed as e:
        return JSONResponse({"job": r.id, "error": e.job.last_error}, 422)
    except echomq.NotFoundError:
        return JSONResponse({"job": r.id, "error": "no such job (or its result expired)"}, 404)
    return JSONResponse({"job": r.id, **value})


app = Starlette(routes=[Route("/reports", create, methods=["POST"]), Route("/reports/{id}", show)])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    web = sub.add_parser("web", help="serve HTTP")
    web.add_argument("--host", default="127.0.0.1")
    web.add_argument("--port", type=int, default=8000)
    w = sub.add_parser("worker", help="run the tasks")
    w.add_argument("--concurrency", type=int, default=8)
    a = ap.parse_args()
    if a.what == "web":
        import uvicorn

        uvicorn.run(app, host=a.host, port=a.port, log_level="warning")
    else:
        asyncio.run(work(a.concurrency))
    return 0


async def work(concurrency: int) -> None:
    """Runs the tasks until SIGINT (Ctrl-C) or SIGTERM (a process manager's
    stop), which drain: running tasks finish, nothing new starts. The
    handlers are set here, not left to Python's defaults: a process started
    in the background may inherit SIGINT ignored, and SIGTERM would kill it
    mid-task."""
    worker = tasks.worker(concurrency=concurrency)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, worker.stop)
    await worker.run()


if __name__ == "__main__":
    sys.exit(main())
