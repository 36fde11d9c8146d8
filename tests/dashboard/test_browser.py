"""The dashboard in a real browser: headless Chromium, driven by selenium,
against a real dashboard process and a real valkey-server."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List

import pytest
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException
from selenium.webdriver.common.by import By

import echomq

from .conftest import ROOT, TOKEN, Dashboard

SHOT = Path(os.environ.get("ECHOMQ_DASHBOARD_SHOT", ROOT / "build" / "dashboard.png"))


def wait_for(what: str, check: Callable[[], Any], timeout: float = 10.0, step: float = 0.1) -> Any:
    """check()'s first truthy result within timeout, else a failure naming what."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = check()
        except StaleElementReferenceException:  # the table was redrawn meanwhile
            last = None
        if last:
            return last
        time.sleep(step)
    pytest.fail(f"timed out after {timeout} s waiting for {what} (last: {last!r})")


def lane_rows(browser: Any) -> Dict[str, Dict[str, str]]:
    """The lanes table as {lane: {column: text}}, read from the DOM."""
    return browser.execute_script("""
        const heads = [...document.querySelectorAll('#lanes thead th')].map(th => th.textContent);
        const out = {};
        for (const tr of document.querySelectorAll('#lanes tbody tr')) {
          const cells = [...tr.children].map(td => td.textContent);
          const row = {};
          heads.forEach((h, i) => { row[h] = cells[i]; });
          out[tr.getAttribute('data-lane')] = row;
        }
        return out;""")


def status(browser: Any) -> str:
    return browser.find_element(By.ID, "status").get_attribute("data-state")


def cli_lane(url: str, queue: str, lane: str) -> Dict[str, Any]:
    """`echomq lane` (the CLI of $ECHOMQ_CLI) as JSON, or the binding's
    answer when the CLI was not built."""
    cli = os.environ.get("ECHOMQ_CLI") or str(ROOT / "build" / "cli" / "echomq")
    if os.path.isfile(cli):
        p = subprocess.run([cli, "-q", queue, "lane", lane, "--json"], capture_output=True, timeout=30,
                           env=dict(os.environ, ECHOMQ_URL=url))
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout)
    with echomq.connect(url) as c:
        info = c.queue(queue).lane(lane)
        return {"group": info.group, "paused": info.paused, "weight": info.weight}


@pytest.fixture(scope="module")
def dash(valkey: Any) -> Iterator[Dashboard]:
    """One dashboard for the page tests, with actions and the token."""
    d = Dashboard(valkey.url, "--allow-actions").start()
    yield d
    d.stop()


@pytest.fixture()
def page(browser: Any, dash: Dashboard) -> Callable[[str], None]:
    def load(path: str) -> None:
        browser.get(dash.base + path)
        wait_for("the page to go live", lambda: status(browser) == "live")
    return load


class Drainer:
    """Claims and acks jobs of a queue at a steady pace in a thread."""

    def __init__(self, url: str, queue: str, per_second: float) -> None:
        self._client = echomq.connect(url)
        self._queue = self._client.queue(queue)
        self._pause = 1.0 / per_second
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            job = self._queue.claim()
            if job is not None:
                job.ack()
            self._stop.wait(self._pause)

    def __enter__(self) -> "Drainer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._client.close()


def test_queue_page_loads_and_a_new_lane_appears_without_reload(browser, page, client, qname):
    q = client.queue(qname)
    q.enqueue("first", b"x")
    page(f"/queues/{qname}")
    assert browser.find_element(By.ID, "queue-name").text == qname
    wait_for("lane 'first' in the table", lambda: "first" in lane_rows(browser))
    marker = browser.execute_script("window.__marker = 42; return window.__marker")
    assert marker == 42
    began = time.monotonic()
    q.enqueue("second-lane", b"y")
    q.enqueue("second-lane", b"z")
    rows = wait_for("the new lane in the table", lambda: lane_rows(browser).get("second-lane"), timeout=2.0)
    print(f"new lane shown after {time.monotonic() - began:.2f} s")
    assert rows["depth"] == "2"
    # No reload happened: the page's own state is still there.
    assert browser.execute_script("return window.__marker") == 42


def test_queue_page_shows_the_lifecycle_settings_and_a_lanes_burst(browser, page, client, qname):
    q = client.queue(qname)
    q.enqueue("calm", b"x")
    q.enqueue("spiky", b"x")
    page(f"/queues/{qname}")
    wait_for("no settings shown", lambda: "no queue-wide ceiling" in browser.find_element(By.ID, "lifecycle").text)
    q.queue_limit(7)
    q.queue_rate(50, 2, burst=60)
    q.default_timeout(90)
    q.limit_burst("spiky", 2, 5)
    text = wait_for("the settings on the page", lambda: (lambda t: "ceiling 7" in t and t)(
        browser.find_element(By.ID, "lifecycle").text), timeout=15)
    assert "queue-wide rate 50 per 2 s, burst 60" in text and "default time limit 90 s" in text
    rows = wait_for("the burst next to the limit", lambda: (lambda r: "burst" in r.get("spiky", {}).get(
        "active/limit", "") and r)(lane_rows(browser)), timeout=15)
    assert rows["spiky"]["active/limit"] == "0/2 (burst 5)"
    assert rows["calm"]["active/limit"] == "0/\u221e"


def test_chart_shows_three_draining_lanes_that_move(browser, page, client, qname, valkey):
    q = client.queue(qname)
    q.enqueue_many([(lane, b"j") for lane in ("red", "green", "blue") for _ in range(600)])
    page(f"/queues/{qname}")
    with Drainer(valkey.url, qname, per_second=60):
        def series() -> List[str]:
            items = browser.find_elements(By.CSS_SELECTOR, "#legend li[data-series=lane]")
            return sorted(li.get_attribute("data-lane") for li in items)
        wait_for("three lane series in the chart", lambda: series() == ["blue", "green", "red"], timeout=15)
        canvas = browser.find_element(By.ID, "chart")
        assert canvas.get_attribute("data-series") == "3"
        first_pixels = browser.execute_script("return document.getElementById('chart').toDataURL()")
        first_points = int(canvas.get_attribute("data-points"))
        # The series move: more points, other pixels, and every lane served.
        wait_for("the chart to move", lambda: int(canvas.get_attribute("data-points")) >= first_points + 2
                 and browser.execute_script("return document.getElementById('chart').toDataURL()") != first_pixels)
        lasts = {li.get_attribute("data-lane"): float(li.get_attribute("data-last"))
                 for li in browser.find_elements(By.CSS_SELECTOR, "#legend li[data-series=lane]")}
        assert set(lasts) == {"red", "green", "blue"} and all(v > 0 for v in lasts.values()), lasts
        rows = lane_rows(browser)
        assert all(rows[lane]["served/s"] not in ("-", "0.00") for lane in ("red", "green", "blue")), rows


def _click_pause(browser: Any, lane: str) -> None:
    """Clicks the lane's pause button; the table is redrawn every sample, so
    a row replaced between finding and clicking is found again."""
    def click() -> bool:
        row = browser.find_element(By.CSS_SELECTOR, f"#lanes tbody tr[data-lane='{lane}']")
        row.find_element(By.CSS_SELECTOR, "button.pause-toggle").click()
        return True
    wait_for(f"a click on pause of {lane}", click)


def _pause_button_text(browser: Any, lane: str) -> str:
    return browser.find_element(By.CSS_SELECTOR, f"#lanes tbody tr[data-lane='{lane}'] button.pause-toggle").text


def _set_token(browser: Any, token: str) -> None:
    box = browser.find_element(By.ID, "token")
    box.clear()
    if token:
        box.send_keys(token)


def test_pause_with_the_token_and_refused_without(browser, page, client, qname, valkey):
    q = client.queue(qname)
    q.enqueue("acme", b"x")
    q.enqueue("other", b"x")
    page(f"/queues/{qname}")
    wait_for("lane rows", lambda: "acme" in lane_rows(browser))

    # Without the token: refused with 403, and nothing changes.
    _set_token(browser, "")
    _click_pause(browser, "other")
    note = wait_for("the refusal", lambda: browser.find_element(By.ID, "notice").text)
    assert "403" in note and "X-EchoMQ-Token" in note, note
    time.sleep(1.5)  # a sample or two later, still not paused
    assert lane_rows(browser)["other"]["paused"] == "no"
    assert cli_lane(valkey.url, qname, "other")["paused"] is False

    # With the token: paused, on the page and for `echomq lane`.
    _set_token(browser, TOKEN)
    _click_pause(browser, "acme")
    wait_for("acme shown paused", lambda: lane_rows(browser)["acme"]["paused"] == "yes")
    assert cli_lane(valkey.url, qname, "acme")["paused"] is True
    assert cli_lane(valkey.url, qname, "other")["paused"] is False
    wait_for("a resume button", lambda: _pause_button_text(browser, "acme") == "resume")


def test_a_lane_name_with_markup_is_shown_as_text(browser, page, client, qname):
    evil = "<img src=x onerror=alert(1)>"
    q = client.queue(qname)
    q.enqueue(evil, b"x", max_attempts=1)
    job = q.claim()
    job.fail("<script>alert(2)</script>")
    q.enqueue(evil, b"y")
    page(f"/queues/{qname}")
    wait_for("the lane in the table", lambda: evil in lane_rows(browser))
    cell = browser.find_element(By.CSS_SELECTOR, "#lanes tbody td.lane")
    assert cell.text == evil
    assert browser.find_elements(By.CSS_SELECTOR, "#view img") == []
    # The chart legend, the lane panel and the dead letters page show it as text too.
    cell.click()
    assert evil in browser.find_element(By.ID, "lane-panel").text
    page(f"/queues/{qname}/dead")
    wait_for("the dead job", lambda: browser.find_elements(By.CSS_SELECTOR, "#dead tbody tr"))
    row = browser.find_element(By.CSS_SELECTOR, "#dead tbody tr")
    assert evil in row.text and "<script>alert(2)</script>" in row.text
    assert browser.find_elements(By.CSS_SELECTOR, "#view img, #view script") == []
    time.sleep(0.5)
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text


def test_page_shows_disconnected_and_recovers(browser, dashboard, client, qname):
    d = dashboard("--allow-actions")
    q = client.queue(qname)
    q.enqueue("before", b"x")
    browser.get(f"{d.base}/queues/{qname}")
    wait_for("live", lambda: status(browser) == "live")
    wait_for("the lane", lambda: "before" in lane_rows(browser))
    d.kill()
    wait_for("disconnected", lambda: status(browser) == "disconnected")
    assert "disconnected" in browser.find_element(By.ID, "status").text
    time.sleep(1.5)  # it keeps retrying meanwhile
    q.enqueue("after", b"y")
    d.start()  # the same port
    wait_for("live again", lambda: status(browser) == "live", timeout=15)
    wait_for("the lane enqueued while it was down", lambda: "after" in lane_rows(browser), timeout=10)


def test_screenshot_of_the_queue_page(browser, dashboard, client, qname, valkey):
    # Tenants with their lanes (one flooding over many lanes) beside plain
    # lanes; a short window so a few seconds of samples fill the chart (the
    # README shows this picture: docs/dashboard.png).
    q = client.queue(qname)
    jobs = [(f"acme/user-{i}", b"j") for i in range(8) for _ in range(200)]
    jobs += [("globex/web", b"j")] * 150 + [("globex/api", b"j")] * 150
    jobs += [(lane, b"j") for lane in ("billing", "reports", "search") for _ in range(150)]
    q.enqueue_many(jobs)
    q.limit("reports", 1)
    q.pause("search")
    d = dashboard("--allow-actions", "--interval", "0.5", "--window", "10")
    browser.get(f"{d.base}/queues/{qname}")
    wait_for("the page to go live", lambda: status(browser) == "live")
    with Drainer(valkey.url, qname, per_second=70):
        wait_for("the chart to fill", lambda: int(browser.find_element(By.ID, "chart").get_attribute("data-points") or 0) >= 17,
                 timeout=30)
    wait_for("verify's result", lambda: browser.find_elements(By.ID, "verify-result"))
    SHOT.parent.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(SHOT)), SHOT
    assert SHOT.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    print(f"screenshot: {SHOT}")


def test_a_job_page_shows_its_parent_and_children(browser, page, client, qname):
    q = client.queue(qname)
    r = q.enqueue_flow(echomq.chord([echomq.step("a"), echomq.step("b")], echomq.step("sum")))
    q.claim().fail("broken", retry_in=60)
    page(f"/queues/{qname}/jobs/{r.root}")
    wait_for("the children", lambda: browser.find_elements(By.CSS_SELECTOR, "#flow-children tbody tr"))
    rows = {row.get_attribute("data-child"): row.text for row in
            browser.find_elements(By.CSS_SELECTOR, "#flow-children tbody tr")}
    assert "delayed" in rows[str(r["job0"])] and "broken" in rows[str(r["job0"])]
    assert "pending" in rows[str(r["job1"])]
    assert "Waits for 2 of its 2 children" in browser.find_element(By.ID, "flow").text
    page(f"/queues/{qname}/jobs/{r['job1']}")
    wait_for("the parent", lambda: browser.find_elements(By.ID, "flow-parent"))
    link = browser.find_element(By.CSS_SELECTOR, "#flow-parent a")
    assert link.text == str(r.root)
    q.delete_flow(r.root)


def test_a_job_page_shows_its_name_and_headers(browser, page, client, qname):
    jid = client.queue(qname).enqueue("g", b"x", name="email:send", headers={"tenant": "acme", "k": "v"})
    page(f"/queues/{qname}/jobs/{jid}")
    wait_for("the job", lambda: browser.find_elements(By.CSS_SELECTOR, '#job dd[data-field="name"]'))
    assert browser.find_element(By.CSS_SELECTOR, '#job dd[data-field="name"]').text == "email:send"
    assert browser.find_element(By.CSS_SELECTOR, '#job dd[data-field="headers"]').text.split("\n") == \
        ["tenant: acme", "k: v"]
    client.queue(qname).purge("g")
