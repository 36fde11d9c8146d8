"""`python -m echomq exporter`: serves the figures of `echomq stats
--format prometheus` over HTTP; a scrape matches the CLI's text."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import urllib.request

import pytest


from prometheus_client.openmetrics import parser  # scripts/setup-deps.sh installs it

from echomq.exporter import top_lanes  # noqa: E402


def samples(text):
    out = {}
    for fam in parser.text_string_to_metric_families(text):
        for s in fam.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def scrape(port):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/metrics",
                                 headers={"Accept": "application/openmetrics-text; version=1.0.0"})
    with urllib.request.urlopen(req, timeout=5) as r:
        return r.read().decode()


def test_exporter_serves_what_the_cli_prints(url, make_queue):
    q, other = make_queue("m1"), make_queue("m2")
    q.schedules.upsert("hourly", cron="@hourly", lane="s")
    q.schedules.upsert("fast", every=0.05, lane="f")
    time.sleep(0.12)
    q.claim().ack()  # fires "fast" once, and runs its job
    q.schedules.pause("fast")
    q.wait_figures(60)  # the wait and share series too
    q.enqueue_many([("big", "x")] * 4 + [("small", "y")] + [("t/x", "z")] * 2)
    q.claim().ack()
    other.enqueue("z", "1", delay=60)

    proc = subprocess.Popen([sys.executable, "-m", "echomq", "exporter", url, q.name, other.name,
                             "--port", "0", "--top", "5"], stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        m = re.search(r":(\d+)/metrics", line)
        assert m, line
        got = samples(scrape(int(m.group(1))))
    finally:
        proc.terminate()
        proc.wait(10)
    assert proc.returncode == 0
    qa = ("queue", q.name)
    assert got[("echomq_jobs", (qa, ("state", "pending")))] == 6
    assert got[("echomq_acked_total", (qa,))] == 2
    assert got[("echomq_lane_depth", (("lane", "big"), qa, ("tenant", "")))] == 3
    assert got[("echomq_lane_depth", (("lane", "t/x"), qa, ("tenant", "t")))] == 2
    assert got[("echomq_lane_window_share", (("lane", "big"), qa, ("tenant", "")))] == 1.0
    assert ("echomq_lane_wait_seconds", (("lane", "big"), ("quantile", "0.99"), qa, ("tenant", ""))) in got
    assert got[("echomq_jobs", (("queue", other.name), ("state", "delayed")))] == 1
    assert got[("echomq_schedule_fires_total", (qa, ("schedule", "fast")))] == 1
    assert got[("echomq_schedule_fires_total", (qa, ("schedule", "hourly")))] == 0
    assert ("echomq_schedule_skips_total", (qa, ("schedule", "fast"))) in got
    assert got[("echomq_schedule_lateness_seconds", (qa, ("schedule", "fast")))] >= 0
    assert ("echomq_schedule_lateness_seconds", (qa, ("schedule", "hourly"))) not in got
    cli = os.environ.get("ECHOMQ_CLI")
    if cli:  # one set of names and figures in both
        text = subprocess.run([cli, "--url", url, "-q", q.name, "stats", "--format", "prometheus", "--top", "5"],
                              check=True, capture_output=True, text=True).stdout
        mine = {k: v for k, v in got.items() if ("queue", q.name) in k[1]}
        assert samples(text) == mine


def test_top_lanes_is_bounded_and_ordered():
    class L:
        def __init__(self, g, d):
            self.group, self.depth = g, d
    lanes = [L("b", 2), L("a", 2), L("c", 5), L("z", 0)]
    assert [x.group for x in top_lanes(iter(lanes), 2)] == ["c", "a"]
    assert [x.group for x in top_lanes(iter(lanes), 10)] == ["c", "a", "b"]


def load_two_tenants(q):
    """acme: 10 lanes of 4 jobs; solo: one lane of 40. 40 plain claims
    alternate the two tenants: 20 for solo/main, 2 for each acme lane."""
    q.wait_figures(60)
    q.enqueue_many([(f"acme/u{i}", b"j") for i in range(10) for _ in range(4)] + [("solo/main", b"j")] * 40)
    for _ in range(40):
        q.claim(lease=300)


def test_tenant_rows_have_families_of_their_own_and_every_figure_adds_up(client, make_queue):
    from prometheus_client.core import CollectorRegistry
    from prometheus_client.openmetrics.exposition import generate_latest

    from echomq.exporter import QueueCollector

    q = make_queue("tenants")
    load_two_tenants(q)
    registry = CollectorRegistry()
    registry.register(QueueCollector(client, [q.name], top=20))
    got = samples(generate_latest(registry).decode())
    qa = ("queue", q.name)
    assert got[("echomq_lanes", (qa,))] == 11 and got[("echomq_tenants", (qa,))] == 2

    def family(name):
        return {dict(k[1]).get("lane", dict(k[1]).get("tenant")): v for k, v in got.items() if k[0] == name}
    lane_share, lane_fair = family("echomq_lane_window_share"), family("echomq_lane_fair_share")
    assert set(lane_share) == {f"acme/u{i}" for i in range(10)} | {"solo/main"}  # no tenant row among lanes
    assert sum(lane_share.values()) == pytest.approx(1.0)
    assert lane_share["solo/main"] == pytest.approx(0.5)
    assert all(lane_share[f"acme/u{i}"] == pytest.approx(0.05) for i in range(10))
    # Fair shares follow the hierarchy: 50 % per backlogged tenant, shared
    # by acme's 10 lanes (5 % of the queue each).
    assert lane_fair["solo/main"] == pytest.approx(0.5)
    assert all(lane_fair[f"acme/u{i}"] == pytest.approx(0.05) for i in range(10))
    assert family("echomq_tenant_window_share") == pytest.approx({"acme": 0.5, "solo": 0.5})
    assert family("echomq_tenant_fair_share") == pytest.approx({"acme": 0.5, "solo": 0.5})
    # Each family adds up to the queue: no job counted twice.
    pending = got[("echomq_jobs", (qa, ("state", "pending")))]
    assert sum(family("echomq_lane_depth").values()) == pending == sum(family("echomq_tenant_depth").values())
    assert sum(family("echomq_lane_active").values()) == 40 == sum(family("echomq_tenant_active").values())
