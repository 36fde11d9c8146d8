"""A Prometheus exporter: ``python -m echomq exporter URL QUEUE...``.

Serves, for each queue, the figures ``echomq stats --format prometheus``
prints (the same metric names, docs/operations.md): jobs by state, lanes,
lanes in the ring, paused lanes, the counters, and the ``top`` deepest lanes
(depth > 0; at most 100, so the label cardinality stays bounded) and, in
families of their own (``echomq_tenant_*``), the ``top`` deepest tenants:
a tenant's row sums its lanes, so no family holds a job twice.  Each
scrape reads the queues afresh (one stats call and one walk of the lanes
per queue, and a read of its schedules: fires, skips and the lateness of
each one's latest fired tick).  Lane series carry the lane's tenant (``tenant``, "" for none)
and, for the same lanes, the wait and share figures while the queue records
them and the cost-mode figures while it is in cost mode.  Needs the
``prometheus_client`` package.
"""

from __future__ import annotations

import heapq
from typing import Dict, Iterable, List, Sequence, Tuple

from .client import Client
from .info import LaneInfo

TOP_MAX = 100
"""Lanes reported by depth at most (the CLI's bound too)."""


def top_lanes(lanes: Iterable[LaneInfo], n: int) -> List[LaneInfo]:
    """The n deepest rows with pending jobs, ties by name (bytes)."""
    busy = (lane for lane in lanes if lane.depth > 0)
    return heapq.nsmallest(n, busy, key=lambda lane: (-lane.depth, lane.group.encode("utf-8")))


def top_lanes_and_tenants(lanes: Iterable[LaneInfo], n: int) -> Tuple[List[LaneInfo], List[LaneInfo]]:
    """One walk, two tops: the n deepest lanes and, apart, the n deepest
    tenants' own rows (``T/``, the sums of their lanes: in one family with
    their lanes a sum over the family would count their jobs twice)."""
    rows = {False: [], True: []}  # type: Dict[bool, List[Tuple[Tuple[int, bytes], int, LaneInfo]]]
    for i, lane in enumerate(lanes):
        if lane.depth <= 0:
            continue
        # A bounded heap of the best n: its smallest item is the worst kept.
        item = ((lane.depth, _inverted(lane.group.encode("utf-8"))), i, lane)
        heap = rows[lane.is_tenant]
        if len(heap) < n:
            heapq.heappush(heap, item)
        elif item[0] > heap[0][0]:
            heapq.heapreplace(heap, item)
    return ([x[2] for x in sorted(rows[False], key=lambda x: x[0], reverse=True)],
            [x[2] for x in sorted(rows[True], key=lambda x: x[0], reverse=True)])


def _inverted(name: bytes) -> Tuple[int, ...]:
    """A key that orders names backwards (so a greater key is an earlier name)."""
    return tuple(255 - b for b in name) + (256,)


class QueueCollector:
    """A prometheus_client collector of the figures of some queues."""

    def __init__(self, client: Client, queues: Sequence[str], top: int = 10) -> None:
        if not 0 <= top <= TOP_MAX:
            raise ValueError(f"top must be 0..{TOP_MAX}, got {top}")
        self._client = client
        self._queues = list(queues)
        self._top = top

    def collect(self):  # type: ignore[no-untyped-def]
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        jobs = GaugeMetricFamily("echomq_jobs", "Jobs of the queue by state.", labels=["queue", "state"])
        lanes = GaugeMetricFamily("echomq_lanes", "Lanes known: with live jobs or settings of their own (not the "
                                  "tenants' own rows).", labels=["queue"])
        ready = GaugeMetricFamily("echomq_lanes_ready", "Lanes in the ring: serviceable now.", labels=["queue"])
        paused = GaugeMetricFamily("echomq_lanes_paused", "Paused lanes.", labels=["queue"])
        counters = [
            (CounterMetricFamily("echomq_enqueued", "Jobs enqueued.", labels=["queue"]), "enqueued_total"),
            (CounterMetricFamily("echomq_claimed", "Deliveries (claims).", labels=["queue"]), "claimed_total"),
            (CounterMetricFamily("echomq_acked", "Jobs acknowledged.", labels=["queue"]), "acked_total"),
            (CounterMetricFamily("echomq_failed", "Failed attempts (fail calls and expired leases).",
                                 labels=["queue"]), "failed_total"),
            (CounterMetricFamily("echomq_dead_lettered", "Jobs dead-lettered.", labels=["queue"]), "dead_total"),
            (CounterMetricFamily("echomq_canceled", "Jobs canceled.", labels=["queue"]), "canceled_total"),
            (CounterMetricFamily("echomq_expired", "Jobs whose start deadline passed.", labels=["queue"]),
             "expired_total"),
        ]
        tenants = GaugeMetricFamily("echomq_tenants", "Tenants: with a lane or a setting of their own listed.",
                                    labels=["queue"])
        # The deepest lanes and, apart, the deepest tenants (their own rows
        # T/, the sums of their lanes): `echomq stats --format prometheus`
        # prints the same families.
        kinds = {}
        for kind, labels, what in (("lane", ["queue", "lane", "tenant"], "lanes"),
                                   ("tenant", ["queue", "tenant"], "tenants (the sums of their lanes)")):
            kinds[kind] = {
                "depth": GaugeMetricFamily(f"echomq_{kind}_depth",
                                           f"Pending jobs of the deepest {what} (top N by depth).", labels=labels),
                "active": GaugeMetricFamily(f"echomq_{kind}_active", "Leased jobs of the same.", labels=labels),
                "wait": GaugeMetricFamily(f"echomq_{kind}_wait_seconds",
                                          "Wait from enqueue to first claim of the same, over the figures' window "
                                          "(bucket upper edge).", labels=labels + ["quantile"]),
                "share": GaugeMetricFamily(f"echomq_{kind}_window_share",
                                           "Part of the queue's claims (cost in cost mode) in the window.",
                                           labels=labels),
                "fair": GaugeMetricFamily(f"echomq_{kind}_fair_share",
                                          "Part of the queue's claims its weight entitles it to in the window "
                                          "(a tenant's lanes share the tenant's by count).", labels=labels),
                "cost_v": GaugeMetricFamily(f"echomq_{kind}_cost_v", "Cost mode: cost charged divided by weight.",
                                            labels=labels),
                "out": GaugeMetricFamily(f"echomq_{kind}_sits_out", "Cost mode: 1 while over its share, off the ring.",
                                         labels=labels),
            }
        sl = ["queue", "schedule"]
        fires = CounterMetricFamily("echomq_schedule_fires", "Ticks the schedule fired (one job each).", labels=sl)
        skips = CounterMetricFamily("echomq_schedule_skips",
                                    "Ticks the schedule skipped: missed, late, overlapping, lane full or fired already.",
                                    labels=sl)
        late = GaugeMetricFamily("echomq_schedule_lateness_seconds",
                                 "How late its latest fired tick fired: from its time to its enqueue.", labels=sl)
        for name in self._queues:
            q = self._client.queue(name)
            s = q.stats()
            for state in ("pending", "leased", "delayed", "dead"):
                jobs.add_metric([name, state], getattr(s, state))
            lanes.add_metric([name], s.lanes)
            ready.add_metric([name], s.ring)
            paused.add_metric([name], s.paused)
            for family, field in counters:
                family.add_metric([name], getattr(s, field))
            tenants.add_metric([name], s.tenants)
            if self._top > 0:
                lane_rows, tenant_rows = top_lanes_and_tenants(q.lanes(), self._top)
                for kind, rows in (("lane", lane_rows), ("tenant", tenant_rows)):
                    fam = kinds[kind]
                    for lane in rows:
                        key = [name, lane.group, lane.tenant or ""] if kind == "lane" else [name, lane.tenant or ""]
                        fam["depth"].add_metric(key, lane.depth)
                        fam["active"].add_metric(key, lane.active)
                        if lane.wait_samples > 0:
                            fam["wait"].add_metric(key + ["0.5"], lane.wait_p50)
                            fam["wait"].add_metric(key + ["0.99"], lane.wait_p99)
                        if lane.window_share is not None:
                            fam["share"].add_metric(key, lane.window_share)
                            fam["fair"].add_metric(key, lane.fair_share)
                        if lane.cost_v is not None or lane.sits_out:
                            fam["cost_v"].add_metric(key, -1.0 if lane.cost_v is None else lane.cost_v)
                            fam["out"].add_metric(key, 1 if lane.sits_out else 0)
            for sched in q.schedules:
                fires.add_metric([name, sched.name], sched.runs)
                skips.add_metric([name, sched.name], sched.skips)
                if sched.lateness is not None:
                    late.add_metric([name, sched.name], sched.lateness.total_seconds())
        yield jobs
        yield lanes
        yield ready
        yield paused
        for family, _ in counters:
            yield family
        yield tenants
        for kind in ("lane", "tenant"):
            yield from kinds[kind].values()
        yield fires
        yield skips
        yield late


def serve(url: str, queues: Sequence[str], *, port: int = 9808, addr: str = "127.0.0.1", top: int = 10):
    """Starts the HTTP endpoint (``/metrics``) in a background thread and
    returns (server, thread, registry)."""
    try:
        from prometheus_client import start_http_server
        from prometheus_client.core import CollectorRegistry
    except ImportError as exc:  # pragma: no cover - depends on the machine
        raise SystemExit("the exporter needs prometheus_client: pip install prometheus-client") from exc
    client = Client()
    client.connect(url)
    registry = CollectorRegistry()
    registry.register(QueueCollector(client, queues, top))
    server, thread = start_http_server(port, addr=addr, registry=registry)
    return server, thread, registry
