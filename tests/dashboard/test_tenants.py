"""Tenant figures that add up on the dashboard: its JSON API, its event
stream, /metrics and the page in a real browser, against a known load.

The load is deterministic: tenant acme has 10 lanes of 4 jobs and tenant
solo one lane of 40; after the dashboard's first sample of the queue, a
plain client makes 40 claims, which the outer ring alternates between the
two tenants: 20 for solo/main and 2 for each acme lane. Shares are of the
jobs served over the chart's window, so they do not depend on when the
samples fell."""

from __future__ import annotations

import json
import time
import urllib.request
from typing import Any, Dict, Iterator, List

import pytest
from selenium.webdriver.common.by import By

import echomq

from .conftest import Dashboard
from .test_browser import lane_rows, status, wait_for

ACME = [f"acme/u{i}" for i in range(10)]


def enqueue_load(q: echomq.Queue) -> None:
    q.wait_figures(60)  # the server's window figures too (/metrics)
    q.enqueue_many([(g, b"j") for g in ACME for _ in range(4)] + [("solo/main", b"j")] * 40)


def claim_load(q: echomq.Queue) -> None:
    for _ in range(40):
        assert q.claim(lease=300) is not None


@pytest.fixture(scope="module")
def dash(valkey: Any) -> Iterator[Dashboard]:
    d = Dashboard(valkey.url, "--interval", "0.2", "--top", "20").start()
    yield d
    d.stop()


def rows_of(dash: Dashboard, queue: str) -> Dict[str, Any]:
    status_code, body = dash.get(f"/api/queues/{queue}/lanes?limit=500&sort=lane")
    assert status_code == 200, body
    return body


def wait_for_load_seen(dash: Dashboard, queue: str) -> Dict[str, Any]:
    """The lanes page once a sample taken after the 40 claims is out, and
    the sample after it (so the window holds every claim)."""
    deadline = time.monotonic() + 20
    seen = None
    while time.monotonic() < deadline:
        body = rows_of(dash, queue)
        served = sum(r["served"] for r in body["lanes"] if not r["is_tenant"])
        if served == 40 and seen is None:
            seen = body["seq"]
        if seen is not None and body["seq"] >= seen + 2:
            return body
        time.sleep(0.1)
    pytest.fail(f"the dashboard never showed the 40 claims (last: {body})")


def test_api_figures_add_up_at_every_level(dash, client, qname):
    q = client.queue(qname)
    enqueue_load(q)
    rows_of(dash, qname)  # the watch's first sample: the counters before the claims
    claim_load(q)
    body = wait_for_load_seen(dash, qname)
    rows = {r["lane"]: r for r in body["lanes"]}
    assert (body["lanes_total"], body["tenants_total"], body["total"]) == (11, 2, 13)
    # A tenant's row: its share among tenants and plain lanes.
    assert rows["acme/"]["share"] == pytest.approx(0.5) and rows["solo/"]["share"] == pytest.approx(0.5)
    # A lane: its share of the queue, beside its share within its tenant.
    for g in ACME:
        assert rows[g]["share"] == pytest.approx(0.05) and rows[g]["share_in_tenant"] == pytest.approx(0.1)
    assert rows["solo/main"]["share"] == pytest.approx(0.5) and rows["solo/main"]["share_in_tenant"] == 1.0
    assert sum(r["share"] for r in rows.values() if not r["is_tenant"]) == pytest.approx(1.0)
    # Fair shares follow the rings: two backlogged tenants of weight 1 get
    # 50 % each, and acme's 10 lanes share its half.
    assert rows["acme/"]["fair_share"] == pytest.approx(0.5) and rows["solo/"]["fair_share"] == pytest.approx(0.5)
    assert all(rows[g]["fair_share"] == pytest.approx(0.05) for g in ACME)
    assert rows["solo/main"]["fair_share"] == pytest.approx(0.5)
    assert "share_in_tenant" in body["columns"]
    # A tenant's weight tilts the tenants' fair shares, not the lanes' count.
    q.weight("acme/", 3)
    deadline = time.monotonic() + 10
    while rows_of(dash, qname)["seq"] < body["seq"] + 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    rows = {r["lane"]: r for r in rows_of(dash, qname)["lanes"]}
    assert rows["acme/"]["fair_share"] == pytest.approx(0.75) and rows["acme/u0"]["fair_share"] == pytest.approx(0.075)
    assert rows["solo/main"]["fair_share"] == pytest.approx(0.25)


def frames(dash: Dashboard, queue: str, n: int, during=None) -> List[Dict[str, Any]]:
    out: List[Dict[str, Any]] = []
    with urllib.request.urlopen(urllib.request.Request(f"{dash.base}/api/queues/{queue}/events"), timeout=20) as r:
        deadline = time.monotonic() + 20
        while len(out) < n and time.monotonic() < deadline:
            line = r.readline().decode()
            if line.startswith("data: "):
                out.append(json.loads(line[6:]))
                if during is not None:
                    during()
    return out


def test_event_frames_count_each_job_once_and_never_stack_a_tenant_on_its_lanes(dash, client, qname):
    q = client.queue(qname)
    enqueue_load(q)
    jobs = iter(range(40))

    def claim_some() -> None:  # served between samples, a few at a time
        for _ in range(4):
            if next(jobs, None) is not None:
                q.claim(lease=300).ack()
    got = frames(dash, qname, 14, during=claim_some)
    last = got[-1]
    assert (last["lanes"], last["tenants"], last["rows"]) == (11, 2, 13)
    assert (last["stats"]["lanes"], last["stats"]["tenants"]) == (11, 2)
    chart = last["chart"]
    names = sorted(s["lane"] for s in chart["series"])
    assert names == ["acme/", "solo/"] and all(s["tenant"] for s in chart["series"]), names
    # Every point of the chart stacks up to the queue's rate, which counts
    # each job once: 40 jobs served over the window, not 80.
    assert chart["totals"][-1] == pytest.approx(last["served_per_s"], abs=0.01)
    assert max(chart["totals"]) > 0
    for i in range(len(chart["times"])):
        stacked = sum(s["values"][i] for s in chart["series"]) + chart["others"][i]
        assert stacked == pytest.approx(chart["totals"][i], abs=0.05), (i, chart)
    body = rows_of(dash, qname)
    assert sum(r["served"] for r in body["lanes"] if not r["is_tenant"]) == 40


def test_metrics_keep_tenants_apart(dash, client, qname):
    q = client.queue(qname)
    enqueue_load(q)
    claim_load(q)
    status_code, text = dash.get("/metrics")
    assert status_code == 200
    lines = [line for line in text.splitlines() if f'queue="{qname}"' in line]
    lane_shares = [float(line.rsplit(" ", 1)[1]) for line in lines if line.startswith("echomq_lane_window_share{")]
    assert len(lane_shares) == 11 and sum(lane_shares) == pytest.approx(1.0)
    assert not any('lane="acme/"' in line for line in lines)
    assert any(line.startswith("echomq_tenant_fair_share{") and 'tenant="acme"' in line and line.endswith(" 0.5")
               for line in lines), lines
    assert f'echomq_lanes{{queue="{qname}"}} 11.0' in text and f'echomq_tenants{{queue="{qname}"}} 2.0' in text


def test_the_page_shows_the_known_load(browser, dash, client, qname):
    q = client.queue(qname)
    enqueue_load(q)
    browser.get(f"{dash.base}/queues/{qname}")
    wait_for("the page to go live", lambda: status(browser) == "live")
    wait_for("the lanes", lambda: "acme/u0" in lane_rows(browser))
    claim_load(q)
    wait_for_load_seen(dash, qname)

    def shown() -> Any:
        rows = lane_rows(browser)
        want = {"acme/": ("50.0%", None, "50.0%"), "solo/": ("50.0%", None, "50.0%"),
                "acme/u7": ("5.0%", "10.0%", "5.0%"), "solo/main": ("50.0%", "100.0%", "50.0%")}
        for lane, (share, inside, fair) in want.items():
            r = rows.get(lane) or {}
            if (r.get("share"), r.get("fair share")) != (share, fair):
                return False
            if inside is not None and r.get("in tenant") != inside:
                return False
        return rows
    rows = wait_for("the known shares in the table", shown, timeout=15)
    assert len(rows) == 13
    figures = browser.execute_script("""
        const out = {};
        for (const f of document.querySelectorAll('#figures .figure'))
          out[f.querySelector('span').textContent] = f.querySelector('b').textContent;
        return out;""")
    assert figures["lanes"] == "11" and figures["tenants"] == "2", figures
    pager = browser.find_element(By.ID, "pager").text
    assert "11 lanes, 2 tenants" in pager, pager
    # The chart stacks the tenants, never a tenant on its own lanes.
    legend = wait_for("the tenants in the chart", lambda: browser.execute_script("""
        const out = {};
        for (const li of document.querySelectorAll('#legend li[data-lane]'))
          out[li.getAttribute('data-lane')] = li.getAttribute('data-series');
        return Object.keys(out).length ? out : null;"""))
    assert legend == {"acme/": "tenant", "solo/": "tenant"}, legend
    classes = browser.execute_script(
        "return document.querySelector(\"#lanes tbody tr[data-lane='acme/'] td.lane\").className")
    assert "tenant" in classes.split(), classes
