"""Read-only figures of a queue and its lanes (``Queue.stats()``, ``Queue.lane()``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple


@dataclass(frozen=True)
class QueueStats:
    """A snapshot of one queue's figures.

    Counts are of now (``pending``, ``leased``, ...) or totals since the
    queue was created (``*_total``).  ``default_limit`` is ``None`` when lanes
    are unlimited by default.  ``server_time`` is the server's clock, in
    seconds since the Unix epoch.  ``lanes`` counts lanes, ``tenants`` the
    tenants they belong to (a tenant's own entry ``T/`` is not a lane);
    ``ring`` and ``paused`` count plain lanes and tenants alike.
    ``canceled_total`` and ``expired_total`` count jobs canceled and jobs
    whose start deadline passed; ``bursting`` the lanes and tenants above
    their limit, below their burst, waiting in the burst ring
    (:mod:`echomq.lifecycle`).
    """

    lanes: int
    ring: int
    pending: int
    leased: int
    delayed: int
    dead: int
    paused: int
    enqueued_total: int
    claimed_total: int
    acked_total: int
    failed_total: int
    dead_total: int
    default_weight: int
    default_limit: Optional[int]
    default_max_attempts: int
    server_time: float
    tenants: int = 0
    canceled_total: int = 0
    expired_total: int = 0
    bursting: int = 0

    @classmethod
    def _from_raw(cls, d: Dict[str, Any]) -> "QueueStats":
        d = dict(d)
        d["default_limit"] = d["default_limit"] or None
        d["server_time"] = d.pop("server_time_ms") / 1000.0
        return cls(**d)


@dataclass(frozen=True)
class LaneInfo:
    """One lane's figures.

    ``limit`` is ``None`` when the lane is unlimited; ``*_is_default`` tell
    whether the limit and weight come from the queue defaults.
    ``serviceable`` is true when the lane is in the ring now.
    ``oldest_enqueued_at`` is the head job's enqueue time (server clock,
    seconds since the epoch), or ``None`` when the lane has no pending job.
    ``known``: the lane has live jobs (delayed ones too) or settings of its
    own; ``delayed``: its jobs waiting for a due time.  ``rate`` is ``(jobs,
    period in seconds, burst)`` or ``None``; ``tokens`` the jobs it may start
    now (``None`` without a rate); ``next_token_at`` when it may next be
    served when out of tokens or throttled (server clock), else ``None``.
    ``cap`` is its size cap (pending + delayed) or ``None``.

    Tenants: ``tenant`` is the tenant T of a lane ``T/L`` and of the tenant's
    own row ``T/`` (``is_tenant``), ``None`` for a lane of no tenant.

    Wait figures (``Queue.wait_figures``), over the last one to two windows,
    ``None`` while they are off or the window has none: ``wait_p50`` and
    ``wait_p99`` are the wait from enqueue to first delivery in seconds (the
    upper edge of a sqrt(2)-wide bucket), from ``wait_samples`` first
    deliveries; ``window_claims`` the deliveries in the window;
    ``window_share`` the lane's part of the queue's deliveries (of the cost
    charged, in cost mode) and ``fair_share`` the part its weight entitles
    it to among the lanes served.  Cost mode: ``cost_v`` is the cost charged
    divided by the weight (``None`` without a charge), ``sits_out`` true
    while the lane is over its share, off the ring.  ``burst`` is its
    burst ceiling (``None`` = none; :meth:`Queue.limit_burst`), ``bursting``
    true while it is at or above its limit, below its burst, served only
    when no lane below its limit has work.
    """

    group: str
    depth: int
    active: int
    limit: Optional[int]
    weight: int
    limit_is_default: bool
    weight_is_default: bool
    paused: bool
    serviceable: bool
    served: int
    oldest_enqueued_at: Optional[float]
    known: bool
    delayed: int
    rate: Optional[Tuple[int, float, int]]
    rate_is_default: bool
    tokens: Optional[float]
    next_token_at: Optional[float]
    cap: Optional[int]
    cap_is_default: bool
    tenant: Optional[str]
    is_tenant: bool
    wait_samples: int
    wait_p50: Optional[float]
    wait_p99: Optional[float]
    window_claims: int
    window_share: Optional[float]
    fair_share: Optional[float]
    cost_v: Optional[float]
    sits_out: bool
    burst: Optional[int] = None
    bursting: bool = False

    @classmethod
    def _from_raw(cls, d: Dict[str, Any]) -> "LaneInfo":
        d = dict(d)
        jobs, period, burst = d.pop("rate_jobs"), d.pop("rate_period_ms"), d.pop("rate_burst")
        d["rate"] = (jobs, period / 1000.0, burst) if jobs else None
        d["tokens"] = d["tokens"] if d["tokens"] >= 0 else None
        nxt = d.pop("next_token_at_ms")
        d["next_token_at"] = nxt / 1000.0 if nxt else None
        d["cap"] = d["cap"] or None
        d["limit"] = d["limit"] or None
        d["burst"] = d["burst"] or None
        oldest = d.pop("oldest_enqueued_at_ms")
        d["oldest_enqueued_at"] = oldest / 1000.0 if oldest else None
        d["tenant"] = d["tenant"] or None
        for name in ("wait_p50", "wait_p99"):
            ms = d.pop(name + "_ms")
            d[name] = ms / 1000.0 if ms >= 0 else None
        for name in ("window_share", "fair_share", "cost_v"):
            d[name] = d[name] if d[name] >= 0 else None
        return cls(**d)


@dataclass(frozen=True)
class Event:
    """One entry of a queue's event stream (``Queue.events``; the format is
    public: docs/keys.md "Events").

    ``stream_id`` is the entry's stream id (pass it as ``after`` to go on);
    ``type`` one of enqueued, claimed, completed, failed, dead, redriven,
    deleted, purged, progress, setting; ``id`` the job id (0 for lane and
    queue events), ``lane``, ``attempt`` and ``time`` (server clock,
    seconds); ``fields`` every field as sent, with the extra ones of its
    type (reason, retry, progress, count, setting, value, result_dropped).

    Every value is text, as ``type`` and ``lane`` are: ``fields`` maps each
    name to a ``str`` decoded from UTF-8.  A progress value is the one
    field that may hold other bytes; they decode losslessly (``errors=
    "surrogateescape"``), so ``fields["progress"].encode("utf-8",
    "surrogateescape")`` gives back the bytes reported.
    """

    stream_id: str
    type: str
    id: int
    lane: str
    attempt: int
    time: float
    fields: Dict[str, str]

    @classmethod
    def _from_raw(cls, raw: Tuple[str, Dict[str, bytes]]) -> "Event":
        sid, f = raw
        text = {name: value.decode("utf-8", "surrogateescape") for name, value in f.items()}

        def number(name: str) -> int:
            v = text.get(name, "")
            return int(v) if v.isdigit() else 0

        return cls(sid, text.get("type", ""), number("id"), text.get("lane", ""), number("attempt"),
                   number("time") / 1000.0, text)
