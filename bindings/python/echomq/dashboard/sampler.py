"""The figures behind the dashboard, read through the binding in threads.

One :class:`Watch` per queue someone looks at: a thread with a client of its
own walks the queue's lanes every ``interval`` seconds, turns the lanes'
``served`` counters into jobs per second and keeps the last ``window``
seconds of them for the chart.  Every page and every stream of that queue
reads the watch's latest sample, so ten open browsers cost one walk per
interval, and a watch nobody read for ``idle`` seconds stops.

Tenants (docs/keys.md, "Tenants"): a tenant's own row ``T/`` holds the sums
of its lanes, so every figure that adds rows up leaves it out: the queue's
served/s is the sum of its lanes, the chart stacks the entries of the outer
ring (plain lanes and tenants, which add up to the queue), a row's ``share``
is of the queue (a tenant's is among tenants and plain lanes), a lane of a
tenant also has its ``share_in_tenant``, and fair shares follow the rings:
an outer entry's weight over the contending outer entries' weights, shared
by count among a tenant's contending lanes.
"""

from __future__ import annotations

import collections
import json
import logging
import threading
import time
from typing import Any, Callable, Deque, Dict, List, Optional, Tuple

from ..client import Client
from ..errors import EchoMQError
from ..info import LaneInfo, QueueStats

log = logging.getLogger("echomq.dashboard")

CHART_LANES = 5
"""Busiest lanes drawn as their own series; the rest are one band."""

WALK_PAGE = 1000
"""Lanes per round trip of a walk (the library's default page)."""

# Fields of lane info that only some lanes carry (a tenant; wait figures
# while the queue records them; a charge in cost mode): the table shows
# their columns only when some lane reports them.
OPTIONAL_LANE_FIELDS = ("tenant", "share_in_tenant", "wait_p50", "wait_p99", "window_share", "window_fair_share",
                        "cost_v")


def lane_row(lane: LaneInfo, rate: Optional[float]) -> Dict[str, Any]:
    """One lane as the JSON the lanes table draws (share columns added later)."""
    row: Dict[str, Any] = {
        "lane": lane.group,
        "depth": lane.depth,
        "active": lane.active,
        "limit": lane.limit,
        "burst": lane.burst,  # its burst ceiling above the limit (None: none)
        "bursting": lane.bursting,
        "weight": lane.weight,
        "rate": None if lane.rate is None else {"jobs": lane.rate[0], "per": lane.rate[1], "burst": lane.rate[2]},
        "cap": lane.cap,
        "paused": lane.paused,
        "delayed": lane.delayed,
        "served": lane.served,
        "served_per_s": rate,
        "oldest_enqueued_at": lane.oldest_enqueued_at,
        "is_tenant": lane.is_tenant,
        "sits_out": lane.sits_out,
    }
    # The server's window figures (LaneInfo.fair_share) under names of their
    # own: "fair_share" is the dashboard's figure from its own samples.
    figures = {"window_fair_share": lane.fair_share}
    for field in OPTIONAL_LANE_FIELDS:
        value = figures[field] if field in figures else getattr(lane, field, None)
        if value is not None:
            row[field] = value
    return row


def stats_dict(s: QueueStats) -> Dict[str, Any]:
    return {
        "pending": s.pending, "leased": s.leased, "delayed": s.delayed, "dead": s.dead,
        "lanes": s.lanes, "tenants": s.tenants, "ring": s.ring, "paused": s.paused,
        "enqueued_total": s.enqueued_total, "claimed_total": s.claimed_total,
        "acked_total": s.acked_total, "failed_total": s.failed_total, "dead_total": s.dead_total,
        "server_time": s.server_time,
    }


def lifecycle_dict(life: Any) -> Dict[str, Any]:
    """A queue's lifecycle settings (Queue.lifecycle) as the queue page shows
    them: the default time limit and the queue-wide ceiling and rate."""
    rate = None if life.rate_jobs is None else {"jobs": life.rate_jobs, "per": life.rate_period, "burst": life.rate_burst}
    return {"default_timeout": life.default_timeout, "queue_limit": life.queue_limit, "rate": rate,
            "leased": life.leased}


class Sample:
    """One walk of a queue: its stats, its lane rows and the chart frame."""

    def __init__(self, seq: int, stats: Optional[Dict[str, Any]], rows: List[Dict[str, Any]],
                 columns: List[str], frame: str, error: Optional[str], partial: Optional[int] = None) -> None:
        self.seq = seq
        self.partial = partial  # lanes read so far while the first walk runs, else None
        self.stats = stats
        self.rows = rows
        self.columns = columns
        self.frame = frame  # the JSON sent to the queue page's event stream
        self.error = error


class Watch:
    """Samples one queue in a thread until nobody has read it for ``idle`` s."""

    def __init__(self, make_client: Callable[[], Client], queue: str, *, interval: float = 1.0,
                 window: float = 180.0, idle: float = 60.0, on_exit: Callable[["Watch"], None]) -> None:
        self.queue = queue
        self._make_client = make_client
        self._interval = interval
        self._idle = idle
        self._on_exit = on_exit
        # One entry per sample: (server time, the outer entries' rates,
        # the queue's rate, each row's jobs served in the interval, the
        # queue's jobs served in it). The window's counts are kept summed.
        self._history: Deque[Tuple[float, Dict[str, float], float, Dict[str, int], int]] = collections.deque()
        self._history_max = max(2, int(window / interval))
        self._window_counts: Dict[str, int] = collections.defaultdict(int)
        self._window_total = 0
        self._prev: Dict[str, int] = {}
        self._prev_t: Optional[float] = None
        self._seq = 0
        self._sample: Optional[Sample] = None
        self._cond = threading.Condition()
        self._last_read = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"echomq-dashboard-{queue}", daemon=True)

    def start(self) -> "Watch":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive() and not self._stop.is_set()

    def latest(self, timeout: float = 10.0) -> Optional[Sample]:
        """The latest sample, waiting up to ``timeout`` s for the first."""
        self._last_read = time.monotonic()
        with self._cond:
            if self._sample is None:
                self._cond.wait_for(lambda: self._sample is not None, timeout)
            return self._sample

    def peek(self) -> Optional[Sample]:
        """The latest sample without waiting (the stream polls it)."""
        self._last_read = time.monotonic()
        return self._sample

    def _run(self) -> None:
        client: Optional[Client] = None
        try:
            while not self._stop.is_set():
                if time.monotonic() - self._last_read > self._idle:
                    break
                began = time.monotonic()
                try:
                    if client is None:
                        client = self._make_client()
                    self._take(client.queue(self.queue), began)
                except EchoMQError as exc:
                    # Reported on the page and retried next interval: the
                    # library reconnects a lost connection on the next call.
                    self._publish(None, [], [], f"{type(exc).__name__}: {exc}")
                took = time.monotonic() - began
                # A big queue is walked at most half the time.
                self._stop.wait(max(self._interval - took, took))
        finally:
            if client is not None:
                client.close()
            self._on_exit(self)

    def _take(self, q: Any, began: float) -> None:
        stats = q.stats()
        lanes: List[LaneInfo] = []
        # Until the first walk is done, each page read is shown at once, so
        # a queue of many lanes fills the table page by page.
        progressive = self._sample is None or self._sample.partial is not None
        for lane in q.lanes(page_size=WALK_PAGE):
            lanes.append(lane)
            if progressive and len(lanes) % WALK_PAGE == 0 and len(lanes) < stats.lanes:
                rows, columns, _ = self._rows(lanes, None)
                _shares(rows, {}, 0)
                self._publish(stats_dict(stats), rows, columns, None, partial=len(lanes))
        now = time.monotonic()
        dt = None if self._prev_t is None else now - self._prev_t
        rows, columns, counts = self._rows(lanes, dt)
        self._prev = {lane.group: lane.served for lane in lanes}
        self._prev_t = now
        total = None
        if dt:
            # Each job once: the lanes, never a tenant's row (their sum).
            served = sum(counts.get(row["lane"], 0) for row in rows if not row["is_tenant"])
            total = served / dt
            outer = {row["lane"]: counts[row["lane"]] / dt for row in rows
                     if counts.get(row["lane"]) and (row["is_tenant"] or "tenant" not in row)}
            self._remember((stats.server_time, outer, total, counts, served))
        _shares(rows, self._window_counts, self._window_total)
        columns = sorted(set(columns) | ({"share_in_tenant"} if any("share_in_tenant" in r for r in rows) else set()))
        self._publish(stats_dict(stats), rows, columns, None, total, time.monotonic() - began)

    def _remember(self, entry: Tuple[float, Dict[str, float], float, Dict[str, int], int]) -> None:
        """Adds a sample to the window, dropping (and subtracting) the oldest."""
        self._history.append(entry)
        for lane, n in entry[3].items():
            self._window_counts[lane] += n
        self._window_total += entry[4]
        while len(self._history) > self._history_max:
            old = self._history.popleft()
            for lane, n in old[3].items():
                left = self._window_counts[lane] - n
                if left > 0:
                    self._window_counts[lane] = left
                else:
                    del self._window_counts[lane]
            self._window_total -= old[4]

    def _rows(self, lanes: List[LaneInfo], dt: Optional[float]) -> Tuple[List[Dict[str, Any]], List[str], Dict[str, int]]:
        """The table rows, the optional columns present, and the jobs each
        row served since the last walk (rows that served some)."""
        counts: Dict[str, int] = {}
        rows: List[Dict[str, Any]] = []
        columns = set()
        for lane in lanes:
            before = self._prev.get(lane.group)
            rate = None
            if dt and before is not None:
                n = max(0, lane.served - before)
                rate = n / dt
                if n > 0:
                    counts[lane.group] = n
            row = lane_row(lane, rate)
            columns.update(f for f in OPTIONAL_LANE_FIELDS if f in row)
            rows.append(row)
        return rows, sorted(columns), counts

    def _publish(self, stats: Optional[Dict[str, Any]], rows: List[Dict[str, Any]], columns: List[str],
                 error: Optional[str], total: Optional[float] = None, took: Optional[float] = None,
                 partial: Optional[int] = None) -> None:
        if stats is None and self._sample is not None and self._sample.partial is None:
            # Keep the last figures on screen, marked with the error.
            stats, rows, columns = self._sample.stats, self._sample.rows, self._sample.columns
        self._seq += 1
        tenants = sum(1 for row in rows if row["is_tenant"])
        frame = json.dumps({"seq": self._seq, "queue": self.queue, "error": error, "stats": stats,
                            "served_per_s": total, "lanes": len(rows) - tenants, "tenants": tenants,
                            "rows": len(rows), "chart": self._chart(),
                            "sample_seconds": None if took is None else round(took, 3), "partial": partial},
                           separators=(",", ":"))
        sample = Sample(self._seq, stats, rows, columns, frame, error, partial)
        with self._cond:
            self._sample = sample
            self._cond.notify_all()

    def _chart(self) -> Dict[str, Any]:
        """The busiest entries of the outer ring (plain lanes and tenants,
        which add up to the queue) over the window as series, the rest as
        one band."""
        sums: Dict[str, float] = collections.defaultdict(float)
        for _, rates, _, _, _ in self._history:
            for lane, r in rates.items():
                sums[lane] += r
        top = sorted(sums, key=lambda lane: (-sums[lane], lane))[:CHART_LANES]
        times = [t for t, _, _, _, _ in self._history]
        series = [{"lane": lane, "tenant": lane.endswith("/"),
                   "values": [round(rates.get(lane, 0.0), 2) for _, rates, _, _, _ in self._history]}
                  for lane in top]
        others = [round(max(0.0, total - sum(rates.get(lane, 0.0) for lane in top)), 2)
                  for _, rates, total, _, _ in self._history]
        totals = [round(total, 2) for _, _, total, _, _ in self._history]
        return {"times": times, "series": series, "others": others, "others_lanes": max(0, len(sums) - len(top)),
                "totals": totals}


def _shares(rows: List[Dict[str, Any]], served: Dict[str, int], total: int) -> None:
    """share: the row's part of the jobs the queue served over the window
    (a tenant's row: its lanes' part, among tenants and plain lanes);
    share_in_tenant: a tenant's lane's part of its tenant's. fair_share:
    an entry of the outer ring (plain lane or tenant) gets its weight's part
    of the weights of the outer entries contending now (not paused, with
    jobs waiting or running, or served since the last sample); a tenant's
    contending lanes share its part by count, as its inner ring serves
    them."""
    def contending(row: Dict[str, Any]) -> bool:
        return not row["paused"] and (row["depth"] > 0 or row["active"] > 0 or bool(row["served_per_s"]))

    tenant_rows = {row["tenant"]: row for row in rows if row["is_tenant"]}
    lanes_of: Dict[str, int] = collections.defaultdict(int)
    outer_weight = 0
    for row in rows:
        t = row.get("tenant")
        if row["is_tenant"] or t is None:
            if contending(row):
                outer_weight += row["weight"]
        elif contending(row):
            lanes_of[t] += 1
    # A tenant whose own row is not (yet) read contends with weight 1.
    for t in lanes_of:
        if t not in tenant_rows:
            outer_weight += 1
    for row in rows:
        t = row.get("tenant")
        mine = served.get(row["lane"], 0)
        row["share"] = mine / total if total > 0 else None
        fair = None
        if row["is_tenant"] or t is None:
            if contending(row) and outer_weight > 0:
                fair = row["weight"] / outer_weight
        else:
            own = tenant_rows.get(t)
            if own is not None:
                tenant_served = served.get(own["lane"], 0)
                if tenant_served > 0:
                    row["share_in_tenant"] = mine / tenant_served
            tenant_on = own is None or contending(own)
            if contending(row) and tenant_on and outer_weight > 0:
                fair = (1 if own is None else own["weight"]) / outer_weight / lanes_of[t]
        row["fair_share"] = fair


class Hub:
    """The watches of one dashboard process, started on first read."""

    def __init__(self, make_client: Callable[[], Client], *, interval: float = 1.0, window: float = 180.0) -> None:
        self._make_client = make_client
        self._interval = interval
        self._window = window
        self._lock = threading.Lock()
        self._watches: Dict[str, Watch] = {}

    def watch(self, queue: str) -> Watch:
        with self._lock:
            w = self._watches.get(queue)
            if w is None or not w.alive:
                w = Watch(self._make_client, queue, interval=self._interval, window=self._window,
                          on_exit=self._gone).start()
                self._watches[queue] = w
            return w

    def watching(self, queue: str) -> Optional[Watch]:
        with self._lock:
            return self._watches.get(queue)

    def _gone(self, w: Watch) -> None:
        with self._lock:
            if self._watches.get(w.queue) is w:
                del self._watches[w.queue]

    def close(self) -> None:
        with self._lock:
            for w in self._watches.values():
                w.stop()
