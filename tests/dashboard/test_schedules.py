"""The dashboard's schedules page: its JSON API without a browser, and the
page in headless Chromium."""

from __future__ import annotations

import time
from typing import Any

from selenium.webdriver.common.by import By

from .test_browser import wait_for


def test_api_lists_each_schedule_with_its_ticks_and_outcome(dashboard, client, qname):
    d = dashboard()
    q = client.queue(qname)
    q.enqueue("x", b"x")  # the queue exists
    q.schedules.upsert("nightly", cron="0 3 * * *", zone="Europe/Paris", lane="reports")
    q.schedules.upsert("fast", every=0.05, lane="L", payload=b"p")
    time.sleep(0.12)
    job = q.claim()  # fires "fast"
    while job is not None and job.group != "L":
        job.ack()
        job = q.claim()
    assert job is not None
    q.schedules.pause("fast")
    status, body = d.get(f"/api/queues/{qname}/schedules")
    assert status == 200
    rows = {s["name"]: s for s in body["schedules"]}
    assert list(rows) == ["fast", "nightly"]
    fast, nightly = rows["fast"], rows["nightly"]
    assert fast["state"] == "paused" and fast["runs"] == 1 and fast["fired_job"] == job.id
    assert fast["last_outcome"] == "leased" and fast["lateness_ms"] >= 0 and fast["fired_tick"] > 0
    assert nightly["timing"] == "cron 0 3 * * * (Europe/Paris)" and nightly["state"] == "armed"
    assert nightly["next_at"] > time.time() and nightly["last_outcome"] is None and nightly["lateness_ms"] is None
    job.ack()
    assert d.get(f"/api/queues/{qname}/schedules")[1]["schedules"][0]["last_outcome"] == "gone"
    assert d.get("/api/queues/no-such-queue/schedules")[0] == 404


def test_the_page_shows_the_schedules(dashboard, client, browser: Any, qname):
    d = dashboard()
    q = client.queue(qname)
    q.enqueue("x", b"x")
    q.schedules.upsert("hourly", cron="@hourly", lane="reports")
    browser.get(f"{d.base}/queues/{qname}")
    link = wait_for("the schedules link", lambda: browser.find_element(By.LINK_TEXT, "schedules"))
    link.click()
    row = wait_for("the schedule's row", lambda: browser.find_elements(By.CSS_SELECTOR, "#schedules tr[data-schedule='hourly']"))
    cells = [td.text for td in row[0].find_elements(By.TAG_NAME, "td")]
    assert cells[0] == "hourly" and cells[1] == "cron @hourly" and cells[2] == "reports" and cells[3] == "armed"
    assert cells[4].endswith(":00:00 UTC")
    assert browser.title == f"schedules of {qname} - echomq"
    q.schedules.remove("hourly")
    wait_for("the empty note", lambda: browser.find_element(By.ID, "no-schedules").is_displayed())
