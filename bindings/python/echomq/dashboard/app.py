"""The dashboard's web application (Starlette): pages, their JSON APIs, the
event stream of a queue, /metrics and the actions.

Every call into the binding blocks, so each runs in Starlette's thread pool
(``run_in_threadpool``); the event loop only moves bytes.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import threading
import time
from pathlib import Path
from typing import Any, Awaitable, Callable, Dict, List, Optional, Sequence

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .. import _convert
from ..client import Client
from ..errors import ConnectionError as EmqConnectionError
from ..errors import EchoMQError, FinishedError, InvalidArgument, LeasedError, NotFoundError, TimeoutError as EmqTimeoutError
from ..exporter import QueueCollector
from . import actions, query
from . import schedules as schedules_page
from .sampler import Hub, lifecycle_dict, stats_dict

STATIC = Path(__file__).resolve().parent / "static"
TOKEN_HEADER = "X-EchoMQ-Token"

# Inline script and style are refused; everything comes from this origin.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
       "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


class Settings:
    """What the command line chose."""

    def __init__(self, url: str, queues: Sequence[str] = (), *, allow_actions: bool = False,
                 token: Optional[str] = None, show_payloads: bool = False, interval: float = 1.0,
                 window: float = 180.0, top: int = 10) -> None:
        self.url = url
        self.queues = [_convert.queue_name(q) for q in queues]
        self.allow_actions = allow_actions
        self.token = token
        self.show_payloads = show_payloads
        self.interval = interval
        self.window = window
        self.top = top


class HttpError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _status_of(exc: BaseException) -> int:
    if isinstance(exc, (InvalidArgument, TypeError, query.BadQuery)):
        return 400
    if isinstance(exc, (NotFoundError, LookupError)):
        return 404
    if isinstance(exc, (LeasedError, FinishedError)):
        return 409
    if isinstance(exc, (EmqConnectionError, EmqTimeoutError)):
        return 503
    return 502


def _api(fn: Callable[[Request], Awaitable[Any]]) -> Callable[[Request], Awaitable[Response]]:
    """Turns exceptions into a JSON error with a clear status."""
    async def endpoint(request: Request) -> Response:
        try:
            result = await fn(request)
        except HttpError as exc:
            return _error(exc.status, exc.message)
        except (EchoMQError, TypeError, ValueError, LookupError) as exc:
            return _error(_status_of(exc), str(exc))
        return result if isinstance(result, Response) else JSONResponse(result)
    return endpoint


class SecurityHeaders:
    """Adds the CSP and friends to every response (a plain ASGI middleware,
    so streamed responses pass through untouched)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + SECURITY_HEADERS
            await send(message)
        await self.app(scope, receive, send_with_headers)


class Dashboard:
    """The state of one dashboard process: a client for requests, the
    watches, the queue list cache."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._client: Optional[Client] = None
        self._client_lock = threading.Lock()
        self.hub = Hub(self._new_client, interval=settings.interval, window=settings.window)
        self._known: List[str] = []
        self._known_at = 0.0

    def _new_client(self) -> Client:
        c = Client()
        c.connect(self.settings.url)
        return c

    @property
    def client(self) -> Client:
        """The request client (calls on it are serialised by the library)."""
        with self._client_lock:
            if self._client is None:
                self._client = self._new_client()
            return self._client

    def close(self) -> None:
        self.hub.close()
        if self._client is not None:
            self._client.close()

    # -- reads (blocking: called in the thread pool) --------------------------

    def queue_names(self, fresh: bool = False) -> List[str]:
        if self.settings.queues:
            return list(self.settings.queues)
        if fresh or time.monotonic() - self._known_at > 5.0:
            self._known = self.client.queues()
            self._known_at = time.monotonic()
        return list(self._known)

    def check_queue(self, name: str) -> str:
        """The queue name if the dashboard shows it, else a 400 or 404."""
        try:
            _convert.queue_name(name)
        except InvalidArgument as exc:
            raise HttpError(400, str(exc)) from None
        if name in self.queue_names() or (not self.settings.queues and name in self.queue_names(fresh=True)):
            return name
        raise HttpError(404, f"no such queue {name!r}" + (" on this dashboard" if self.settings.queues else ""))

    def overview(self) -> List[Dict[str, Any]]:
        out = []
        for name in self.queue_names(fresh=True):
            q = self.client.queue(name)
            row = {"queue": name, **stats_dict(q.stats()), "shards": len(q.shards())}
            w = self.hub.watching(name)
            sample = w.peek() if w is not None else None
            row["served_per_s"] = None
            if sample is not None and sample.error is None:
                frame = json.loads(sample.frame)
                row["served_per_s"] = frame.get("served_per_s")
            out.append(row)
        return out

    def job(self, queue: str, jid: int) -> Dict[str, Any]:
        q = self.client.queue(queue)
        job = q.job(jid)
        if job is None:
            raise HttpError(404, f"no job {jid} in queue {queue!r} (acked, deleted or never enqueued)")
        d = self.job_dict(job, full=True)
        d["flow"] = self.flow_dict(q, jid)
        return d

    def flow_dict(self, q: Any, jid: int) -> Dict[str, Any]:
        """A job's links in its flow (docs/operations.md "Flows"): its
        parent and its children with their states (results are not shown,
        as payloads are not, unless --show-payloads)."""
        try:
            info = q.flow_info(jid)
        except NotFoundError:
            return {"parent": None, "on_fail": None, "waiting": 0, "children": []}
        kids = []
        for c in info.children:
            k: Dict[str, Any] = {"id": c.id, "state": c.state, "attempts": c.attempts,
                                 "finished_at": c.finished_at_ms / 1000 if c.finished_at_ms else None,
                                 "error": c.error, "result_bytes": len(c.result)}
            if self.settings.show_payloads:
                k["result"] = c.result.decode("utf-8", "replace")
            kids.append(k)
        return {"parent": info.parent, "on_fail": info.on_fail if info.parent else None,
                "waiting": info.waiting, "children": kids}

    def job_dict(self, job: Any, full: bool = False) -> Dict[str, Any]:
        d = {"id": job.id, "lane": job.group, "state": job.state, "attempt": job.attempt, "max_attempts": job.max_attempts, "enqueued_at": job.enqueued_at,
             "lease_until": job.lease_until, "due_at": job.due_at, "dead_at": job.dead_at,
             "last_error": job.last_error, "payload_bytes": len(job.payload), "name": job.name or ""}
        if full:
            d["headers"] = dict(job.headers or {})  # metadata (a trace context, a tenant), not the payload
        if full and self.settings.show_payloads:
            d["payload"] = job.payload.decode("utf-8", "replace")
            d["payload_is_utf8"] = _is_utf8(job.payload)
        return d

    def dead(self, queue: str, offset: int, limit: int) -> Dict[str, Any]:
        q = self.client.queue(queue)
        total = q.stats().dead
        jobs = q.dead(offset, limit) if offset < total else []
        return {"total": total, "offset": offset, "limit": limit, "jobs": [self.job_dict(j) for j in jobs]}

    def metrics(self, accept: str) -> Response:
        from prometheus_client.core import CollectorRegistry
        from prometheus_client.exposition import choose_encoder

        registry = CollectorRegistry()
        registry.register(QueueCollector(self.client, self.queue_names(fresh=True), self.settings.top))
        encoder, content_type = choose_encoder(accept)
        return Response(encoder(registry), media_type=None, headers={"content-type": content_type})


def _is_utf8(b: bytes) -> bool:
    try:
        b.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def build_app(settings: Settings) -> Starlette:
    dash = Dashboard(settings)

    async def page(request: Request) -> Response:
        # One document for every page; the script draws the page its URL names.
        return FileResponse(STATIC / "index.html", headers={"cache-control": "no-store"})

    async def config(request: Request) -> Dict[str, Any]:
        return {"actions": settings.allow_actions, "show_payloads": settings.show_payloads,
                "interval": settings.interval, "window": settings.window, "token_header": TOKEN_HEADER,
                "queues": settings.queues}

    async def queues(request: Request) -> Dict[str, Any]:
        return {"queues": await run_in_threadpool(dash.overview)}

    async def queue_of(request: Request) -> str:
        return await run_in_threadpool(dash.check_queue, request.path_params["queue"])

    async def sample_of(request: Request) -> Any:
        name = await queue_of(request)
        sample = await run_in_threadpool(dash.hub.watch(name).latest)
        if sample is None:
            raise HttpError(503, f"queue {name!r} could not be read yet")
        return name, sample

    async def one_queue(request: Request) -> Dict[str, Any]:
        name, sample = await sample_of(request)
        def settings() -> Dict[str, Any]:
            q = dash.client.queue(name)
            return {"shards": q.shards(), "lifecycle": lifecycle_dict(q.lifecycle())}
        return {"queue": name, "stats": sample.stats, "error": sample.error, "columns": sample.columns,
                **await run_in_threadpool(settings)}

    async def lanes(request: Request) -> Dict[str, Any]:
        name, sample = await sample_of(request)
        page = await run_in_threadpool(query.lanes_page, sample.rows, request.query_params)
        stats = sample.stats or {}
        return {"queue": name, "error": sample.error, "columns": sample.columns, "seq": sample.seq,
                "partial": sample.partial, "lanes_total": stats.get("lanes"), "tenants_total": stats.get("tenants"),
                **page}

    async def events(request: Request) -> Response:
        name = await queue_of(request)
        dash.hub.watch(name)

        async def stream():  # type: ignore[no-untyped-def]
            # A reconnecting browser waits 1 s; the comment line keeps proxies open.
            yield "retry: 1000\n\n"
            seq = -1
            quiet = 0.0
            while True:
                watch = dash.hub.watch(name)  # restarted if it went idle
                sample = watch.peek()
                if sample is not None and sample.seq != seq:
                    seq = sample.seq
                    quiet = 0.0
                    yield f"data: {sample.frame}\n\n"
                elif quiet >= 15.0:
                    quiet = 0.0
                    yield ": keep-alive\n\n"
                await asyncio.sleep(0.2)
                quiet += 0.2
        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"cache-control": "no-store", "x-accel-buffering": "no"})

    async def verify(request: Request) -> Dict[str, Any]:
        name = await queue_of(request)
        began = time.monotonic()
        lines = await run_in_threadpool(lambda: dash.client.queue(name).verify())
        return {"queue": name, "healthy": not lines, "violations": lines,
                "seconds": round(time.monotonic() - began, 3)}

    async def dead(request: Request) -> Dict[str, Any]:
        name = await queue_of(request)
        page = query.page_of(request.query_params)
        return {"queue": name, **await run_in_threadpool(dash.dead, name, page["offset"], page["limit"])}

    async def job(request: Request) -> Dict[str, Any]:
        name = await queue_of(request)
        text = request.path_params["id"]
        if not text.isdigit() or int(text) < 1 or int(text) > 2**64 - 1:
            raise HttpError(400, f"job id must be a whole number >= 1, got {text!r}")
        return {"queue": name, "job": await run_in_threadpool(dash.job, name, int(text))}

    async def action(request: Request) -> Response:
        if request.method != "POST":
            raise HttpError(405, "actions are POST requests with the token in the X-EchoMQ-Token header")
        if not settings.allow_actions:
            raise HttpError(403, "actions are off: start the dashboard with --allow-actions")
        given = request.headers.get(TOKEN_HEADER, "")
        if not given:
            raise HttpError(403, f"the {TOKEN_HEADER} header is missing")
        if not hmac.compare_digest(given.encode(), (settings.token or "").encode()):
            raise HttpError(403, f"the {TOKEN_HEADER} header does not hold the dashboard's token")
        name = await queue_of(request)
        try:
            body = json.loads(await request.body() or b"{}")
        except ValueError:
            raise HttpError(400, "the body must be JSON") from None
        plan = actions.plan(request.path_params["action"], body)
        changed = await run_in_threadpool(plan.run, dash.client.queue(name))
        actions.log_action(name, plan, changed)
        return JSONResponse({"queue": name, "action": plan.action, "done": plan.summary, "changed": changed})

    async def metrics(request: Request) -> Response:
        return await run_in_threadpool(dash.metrics, request.headers.get("accept", ""))

    async def not_found(request: Request) -> Response:
        return _error(404, f"no such endpoint {request.url.path}")

    routes = [
        Route("/", page),
        Route("/queues/{queue}", page),
        Route("/queues/{queue}/dead", page),
        Route("/queues/{queue}/jobs", page),
        Route("/queues/{queue}/jobs/{id}", page),
        Route("/api/config", _api(config)),
        Route("/api/queues", _api(queues)),
        Route("/api/queues/{queue}", _api(one_queue)),
        Route("/api/queues/{queue}/lanes", _api(lanes)),
        Route("/api/queues/{queue}/events", _api(events)),
        Route("/api/queues/{queue}/verify", _api(verify)),
        Route("/api/queues/{queue}/dead", _api(dead)),
        Route("/api/queues/{queue}/jobs/{id}", _api(job)),
        Route("/api/queues/{queue}/actions/{action}", _api(action), methods=["GET", "POST"]),
        *schedules_page.routes(page, _api, queue_of, lambda: dash.client),
        Route("/api/{rest:path}", not_found, methods=["GET", "POST", "PUT", "DELETE", "PATCH"]),
        Route("/metrics", metrics),
        Mount("/static", app=StaticFiles(directory=str(STATIC)), name="static"),
    ]
    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):  # type: ignore[no-untyped-def]
        yield
        dash.close()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.dashboard = dash
    app.add_middleware(SecurityHeaders)
    return app
