"""Load: a queue of 10,000 lanes, one page load in the browser. The first
paint and the time to the first table rows are measured and printed, not
asserted (a speed figure is no test); the test asserts that the page shows
one page of rows, pages and searches on the server, and stays live."""

from __future__ import annotations

import time

from selenium.webdriver.common.by import By

from .test_browser import lane_rows, status, wait_for

LANES = 10_000


def test_ten_thousand_lanes_one_page_load(browser, dashboard, client, qname, capsys):
    q = client.queue(qname)
    q.enqueue_many([(f"tenant-{i:05d}", b"x") for i in range(LANES)])
    assert q.stats().lanes == LANES
    d = dashboard()
    began = time.monotonic()
    browser.get(f"{d.base}/queues/{qname}")
    wait_for("the first rows", lambda: browser.execute_script(
        "return performance.getEntriesByName('emq-lanes-drawn').length"), timeout=30)
    wall = time.monotonic() - began
    paint = browser.execute_script(
        "const p = performance.getEntriesByName('first-contentful-paint'); return p.length ? p[0].startTime : null")
    rows_at = browser.execute_script("return performance.getEntriesByName('emq-lanes-drawn')[0].startTime")
    assert len(lane_rows(browser)) == 50
    wait_for("every lane read", lambda: browser.execute_script(
        "return performance.getEntriesByName('emq-lanes-complete').length"), timeout=60)
    complete_at = browser.execute_script("return performance.getEntriesByName('emq-lanes-complete')[0].startTime")
    wait_for("the pager", lambda: browser.find_element(By.ID, "pager").text == "lanes 1\u201350 of 10,000")
    assert list(lane_rows(browser))[0] == "tenant-00000", "depth ties in name order"
    # Searching and paging go to the server and come back with one page.
    box = browser.find_element(By.ID, "lane-search")
    box.send_keys("tenant-0999")
    wait_for("the search result", lambda: sorted(lane_rows(browser)) == [f"tenant-0999{i}" for i in range(10)])
    box.clear()
    box.send_keys("tenant-09999")
    wait_for("one row", lambda: list(lane_rows(browser)) == ["tenant-09999"])
    assert status(browser) == "live"
    sample = browser.execute_script("""
        return fetch(location.pathname.replace('/queues/', '/api/queues/') + '/lanes?limit=1')
          .then(r => r.json()).then(j => j.total)""")
    assert sample == LANES
    with capsys.disabled():
        print(f"\n10,000 lanes: first contentful paint {paint:.0f} ms, first table rows {rows_at:.0f} ms, "
              f"every lane read {complete_at:.0f} ms after navigation start "
              f"({wall:.2f} s from the driver's navigation to rows seen)")
