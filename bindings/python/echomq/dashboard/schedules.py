"""The dashboard's schedules page: each schedule of a queue with its next
tick, its last fired tick, that tick's outcome and how late it fired
(``/queues/{queue}/schedules``, and its JSON at ``/api/queues/{queue}/schedules``).
Read-only: schedules are changed through the library or the CLI."""

from __future__ import annotations

import datetime
from typing import Any, Awaitable, Callable, Dict, List, Optional

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.routing import Route

from ..client import Client
from ..schedules import Schedule


def _seconds(t: Optional[datetime.datetime]) -> Optional[float]:
    return None if t is None else t.timestamp()


def schedule_dict(s: Schedule) -> Dict[str, Any]:
    """One schedule as the page shows it (times as Unix seconds, as elsewhere)."""
    timing = f"every {s.every.total_seconds():g} s" if s.every is not None else f"cron {s.cron}" + (
        f" ({s.zone})" if s.zone and s.zone != "UTC" else "")
    return {
        "name": s.name, "timing": timing, "lane": s.lane,
        "state": "paused" if s.paused else (f"ended ({s.ended})" if s.ended else "armed"),
        "next_at": _seconds(s.next_at) if not s.ended else None,
        "last_tick": _seconds(s.last_tick), "fired_tick": _seconds(s.fired_tick), "fired_at": _seconds(s.fired_at),
        "lateness_ms": None if s.lateness is None else round(s.lateness.total_seconds() * 1000),
        "last_outcome": s.last_outcome, "fired_job": s.fired_job, "runs": s.runs, "skips": s.skips,
        "missed": s.missed, "overlap": s.overlap,
    }


def rows(client: Client, queue: str) -> List[Dict[str, Any]]:
    return [schedule_dict(s) for s in client.queue(queue).schedules]


def routes(page: Callable[[Request], Awaitable[Any]], api: Callable[..., Any],
           queue_of: Callable[[Request], Awaitable[str]], client: Callable[[], Client]) -> List[Route]:
    """The page and its API (app.py adds them to its routes)."""

    async def schedules(request: Request) -> Dict[str, Any]:
        name = await queue_of(request)
        return {"queue": name, "schedules": await run_in_threadpool(rows, client(), name)}

    return [Route("/queues/{queue}/schedules", page), Route("/api/queues/{queue}/schedules", api(schedules))]
