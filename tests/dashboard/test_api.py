"""The dashboard's HTTP API without a browser: every endpoint, and bad input
answered with a clear 4xx that changes nothing."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import urllib.request
from typing import Any, Dict

import pytest

import echomq
from emq_valkey import Resp

from .conftest import TOKEN, Dashboard, free_port

CSP = re.compile(r"script-src 'self'")


@pytest.fixture(scope="module")
def dash(valkey: Any) -> Dashboard:
    d = Dashboard(valkey.url, "--allow-actions").start()
    yield d
    d.stop()


@pytest.fixture()
def resp(valkey: Any):
    with Resp(valkey.url) as r:
        yield r


def unchanged(resp: Resp, queue: str):
    """A context that asserts the queue's keys are the same after the block."""
    class Same:
        def __enter__(self) -> None:
            self.before = resp.snapshot(f"emq:{{{queue}}}:*")
            assert self.before, "the queue should exist"

        def __exit__(self, *exc: object) -> None:
            if exc[0] is None:
                assert resp.snapshot(f"emq:{{{queue}}}:*") == self.before
    return Same()


def api(dash: Dashboard, queue: str, path: str = "") -> str:
    return f"/api/queues/{queue}{path}"


# -- reads ---------------------------------------------------------------------


def test_config_says_what_is_on(dash):
    status, body = dash.get("/api/config")
    assert status == 200
    assert body["actions"] is True and body["show_payloads"] is False
    assert body["token_header"] == "X-EchoMQ-Token"


def test_queues_list_counts_and_one_row_per_sharded_queue(dash, client, qname):
    q = client.queue(qname)
    q.enqueue("a", b"1")
    q.enqueue("b", b"2", delay=60)
    q.enqueue("b", b"3")
    q.claim()
    sharded = client.create_sharded(qname + "-sh", 3)
    for lane in ("x", "y", "z", "w"):
        sharded.enqueue(lane, b"p")
    status, body = dash.get("/api/queues")
    assert status == 200
    rows = {r["queue"]: r for r in body["queues"]}
    mine = rows[qname]
    assert (mine["pending"], mine["leased"], mine["delayed"], mine["dead"], mine["lanes"]) == (1, 1, 1, 0, 2)
    assert rows[qname + "-sh"]["shards"] == 3 and rows[qname + "-sh"]["pending"] == 4
    assert rows[qname + "-sh"]["lanes"] == 4
    shard_names = set(sharded.shards())
    assert len(shard_names) == 3 and not shard_names & set(rows), "shard queues are not listed"
    status, page = dash.get(api(dash, qname + "-sh", "/lanes"))
    assert status == 200 and sorted(r["lane"] for r in page["lanes"]) == ["w", "x", "y", "z"]


def test_one_queue_and_unknown_or_bad_queue_names(dash, client, qname):
    client.queue(qname).enqueue("a", b"1")
    status, body = dash.get(api(dash, qname))
    assert status == 200 and body["stats"]["pending"] == 1 and body["shards"] == []
    status, body = dash.get(api(dash, "no-such-queue-here", "/lanes"))
    assert status == 404 and body["error"] == "no such queue 'no-such-queue-here'"
    for path in ("", "/lanes", "/verify", "/dead", "/jobs/1", "/events"):
        status, body = dash.get(api(dash, "bad%20name", path))
        assert status == 400 and "queue name 'bad name' may hold only" in body["error"], (path, body)


def test_one_queue_shows_the_lifecycle_settings_and_lanes_their_burst(dash, client, qname):
    q = client.queue(qname)
    q.enqueue("a", b"1")
    status, body = dash.get(api(dash, qname))
    assert status == 200 and body["lifecycle"] == {"default_timeout": None, "queue_limit": None, "rate": None,
                                                   "leased": 0}
    q.default_timeout(90)
    q.queue_limit(7)
    q.queue_rate(50, 2, burst=60)
    q.limit_burst("a", 2, 5)
    status, body = dash.get(api(dash, qname))
    assert status == 200 and body["lifecycle"] == {"default_timeout": 90.0, "queue_limit": 7,
                                                   "rate": {"jobs": 50, "per": 2.0, "burst": 60}, "leased": 0}

    def lane_a():
        _, page = dash.get(api(dash, qname, "/lanes"))
        return next((r for r in page["lanes"] if r["lane"] == "a" and r["burst"] == 5), None)
    deadline = time.monotonic() + 10
    row = lane_a()
    while row is None and time.monotonic() < deadline:  # the sampler's next walk
        time.sleep(0.2)
        row = lane_a()
    assert row is not None and row["limit"] == 2 and row["bursting"] is False


def test_lanes_are_sorted_searched_and_paged_on_the_server(dash, client, qname):
    q = client.queue(qname)
    q.enqueue_many([(f"lane-{i:03d}", b"x") for i in range(120) for _ in range(i % 7 + 1)])
    q.weight("lane-005", 9)
    status, body = dash.get(api(dash, qname, "/lanes?sort=lane&order=asc&offset=100&limit=10"))
    assert status == 200
    assert body["total"] == 120 and body["matched"] == 120
    assert [r["lane"] for r in body["lanes"]] == [f"lane-{i:03d}" for i in range(100, 110)]
    status, body = dash.get(api(dash, qname, "/lanes?sort=depth&order=desc&limit=3"))
    assert [r["depth"] for r in body["lanes"]] == [7, 7, 7]
    assert [r["lane"] for r in body["lanes"]] == ["lane-006", "lane-013", "lane-020"], "ties in name order"
    status, body = dash.get(api(dash, qname, "/lanes?q=LANE-11&sort=lane"))
    assert body["matched"] == 10 and body["total"] == 120
    assert all(r["lane"].startswith("lane-11") for r in body["lanes"])
    status, body = dash.get(api(dash, qname, "/lanes?sort=weight&limit=1"))
    assert body["lanes"][0]["lane"] == "lane-005" and body["lanes"][0]["weight"] == 9
    row = body["lanes"][0]
    for field in ("depth", "active", "limit", "weight", "rate", "cap", "paused", "served_per_s", "share", "fair_share"):
        assert field in row, field
    # tenant and wait figure columns only where the library reports them
    info = q.lane("lane-005")
    for field in ("tenant", "wait_p99"):
        assert (field in body["columns"]) == (getattr(info, field) is not None)
    for bad, word in (("sort=nope", "sort must be"), ("order=up", "order must be"), ("offset=-1", "offset must be"),
                      ("limit=0", "limit must be"), ("limit=501", "limit must be"), ("offset=x", "offset must be")):
        status, body = dash.get(api(dash, qname, "/lanes?" + bad))
        assert status == 400 and word in body["error"], (bad, body)


def test_lanes_show_wait_and_tenant_columns_when_recorded(dash, client, qname):
    q = client.queue(qname)
    q.wait_figures(60)
    q.enqueue_many([("t/a", b"x"), ("t/b", b"x"), ("plain", b"x")] * 3)
    for _ in range(3):
        q.claim()
    deadline = time.monotonic() + 10
    body: Dict[str, Any] = {}
    while time.monotonic() < deadline:
        status, body = dash.get(api(dash, qname, "/lanes?sort=lane"))
        if "wait_p99" in body.get("columns", []):
            break
        time.sleep(0.2)
    for field in ("tenant", "wait_p50", "wait_p99", "window_share", "window_fair_share"):
        assert field in body["columns"], (field, body["columns"])
    rows = {r["lane"]: r for r in body["lanes"]}
    assert rows["t/a"]["tenant"] == "t" and "tenant" not in rows["plain"]
    assert rows["plain"]["wait_p99"] > 0 and rows["plain"]["window_fair_share"] == pytest.approx(0.5)
    status, body = dash.get(api(dash, qname, "/lanes?sort=wait_p99"))
    assert status == 200 and body["sort"] == "wait_p99"


def test_event_stream_sends_frames_with_the_chart(dash, client, qname):
    q = client.queue(qname)
    q.enqueue_many([("a", b"x")] * 50 + [("b", b"x")] * 50)
    req = urllib.request.Request(dash.base + api(dash, qname, "/events"))
    frames = []
    with urllib.request.urlopen(req, timeout=10) as r:
        assert r.headers["content-type"].startswith("text/event-stream")
        assert CSP.search(r.headers["content-security-policy"])
        deadline = time.monotonic() + 10
        while len(frames) < 4 and time.monotonic() < deadline:
            line = r.readline().decode()
            if line.startswith("data: "):
                frames.append(json.loads(line[6:]))
                for _ in range(10):  # served between samples
                    job = q.claim()
                    job.ack()
    assert len(frames) == 4
    assert frames[-1]["queue"] == qname and frames[-1]["stats"]["lanes"] == 2
    chart = frames[-1]["chart"]
    assert sorted(s["lane"] for s in chart["series"]) == ["a", "b"]
    assert len(chart["times"]) >= 2 and all(len(s["values"]) == len(chart["times"]) for s in chart["series"])
    assert sum(s["values"][-1] for s in chart["series"]) > 0
    assert [f["seq"] for f in frames] == sorted(f["seq"] for f in frames)


def test_verify_dead_letters_and_jobs(dash, client, qname):
    q = client.queue(qname)
    ids = [q.enqueue("g", f"payload-{i}".encode(), max_attempts=1) for i in range(5)]
    for i in range(5):
        job = q.claim()
        job.fail(f"error {i}")
    status, body = dash.get(api(dash, qname, "/verify"))
    assert status == 200 and body["healthy"] is True and body["violations"] == []
    status, body = dash.get(api(dash, qname, "/dead?offset=1&limit=2"))
    assert status == 200 and body["total"] == 5
    assert [j["id"] for j in body["jobs"]] == ids[1:3]
    assert [j["last_error"] for j in body["jobs"]] == ["error 1", "error 2"]
    status, body = dash.get(api(dash, qname, "/dead?offset=9"))
    assert status == 200 and body["jobs"] == []
    status, body = dash.get(api(dash, qname, f"/jobs/{ids[0]}"))
    assert status == 200
    job = body["job"]
    assert (job["state"], job["lane"], job["attempt"], job["last_error"]) == ("dead", "g", 1, "error 0")
    assert "payload" not in job and job["payload_bytes"] == len(b"payload-0"), "payloads need --show-payloads"
    assert job["name"] == "" and job["headers"] == {}
    named = q.enqueue("g", b"x", name="email:send", headers={"tenant": "acme"})
    status, body = dash.get(api(dash, qname, f"/jobs/{named}"))
    assert (body["job"]["name"], body["job"]["headers"]) == ("email:send", {"tenant": "acme"})
    status, body = dash.get(api(dash, qname, "/jobs/999999"))
    assert status == 404 and "no job 999999" in body["error"]
    for bad in ("0", "abc", "-3", str(2**64)):
        status, body = dash.get(api(dash, qname, f"/jobs/{bad}"))
        assert status == 400 and "job id must be" in body["error"], bad


def test_payloads_only_with_show_payloads(dashboard, client, qname):
    jid = client.queue(qname).enqueue("g", "<b>héllo</b>".encode())
    d = dashboard("--show-payloads")
    status, body = d.get(api(d, qname, f"/jobs/{jid}"))
    assert status == 200 and body["job"]["payload"] == "<b>héllo</b>"


def test_metrics_are_the_exporters_text(dash, client, qname):
    prometheus_client = pytest.importorskip("prometheus_client")
    from prometheus_client.core import CollectorRegistry

    from echomq.exporter import QueueCollector

    q = client.queue(qname)
    q.enqueue_many([("deep", b"x")] * 3 + [("shallow", b"x")])
    status, hdrs, text = dash.request("GET", "/metrics")
    assert status == 200 and hdrs["content-type"].startswith("text/plain")
    registry = CollectorRegistry()
    registry.register(QueueCollector(client, [qname], 10))
    expected = [line for line in prometheus_client.generate_latest(registry).decode().splitlines()
                if f'queue="{qname}"' in line]
    got = [line for line in text.splitlines() if f'queue="{qname}"' in line]
    assert got == expected and got
    status, hdrs, text = dash.request("GET", "/metrics", headers={"accept": "application/openmetrics-text"})
    assert hdrs["content-type"].startswith("application/openmetrics-text") and text.rstrip().endswith("# EOF")


def test_every_response_carries_the_csp(dash):
    for path in ("/", "/queues/x", "/static/app.js", "/api/queues", "/api/nope", "/metrics"):
        status, hdrs, _ = dash.request("GET", path)
        assert CSP.search(hdrs.get("content-security-policy", "")), path
        assert "unsafe-inline" not in hdrs["content-security-policy"]
        assert hdrs["x-content-type-options"] == "nosniff"
    status, _, html = dash.request("GET", "/")
    assert status == 200
    # No inline script: every script element loads a file of the package.
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", html, re.S)
    assert scripts and all('src="/static/' in attrs and body.strip() == "" for attrs, body in scripts)
    assert " on" not in re.sub(r"\s+", " ", " ".join(re.findall(r"<[^>]+>", html))).replace(" one", ""), \
        "no inline event handler"
    status, _, body = dash.request("GET", "/api/nope")
    assert status == 404 and "no such endpoint" in body["error"]


# -- actions -------------------------------------------------------------------


def test_actions_change_what_they_say_and_log_it(dash, client, qname):
    q = client.queue(qname)
    q.enqueue("acme", b"x")
    path = api(dash, qname, "/actions/")
    checks = [
        ("pause", {"lane": "acme"}, lambda i: i.paused is True),
        ("resume", {"lane": "acme"}, lambda i: i.paused is False),
        ("weight", {"lane": "acme", "value": 5}, lambda i: i.weight == 5 and not i.weight_is_default),
        ("weight", {"lane": "acme", "value": None}, lambda i: i.weight_is_default),
        ("limit", {"lane": "acme", "value": 3}, lambda i: i.limit == 3),
        ("limit", {"lane": "acme", "value": None}, lambda i: i.limit is None),
        ("rate", {"lane": "acme", "jobs": 10, "per": 2, "burst": 4}, lambda i: i.rate == (10, 2.0, 4)),
        ("rate", {"lane": "acme", "jobs": None}, lambda i: i.rate is None),
        ("cap", {"lane": "acme", "value": 100}, lambda i: i.cap == 100),
        ("cap", {"lane": "acme", "value": None}, lambda i: i.cap is None),
    ]
    for action, body, ok in checks:
        status, out = dash.post(path + action, body, token=TOKEN)
        assert status == 200, (action, out)
        assert ok(q.lane("acme")), (action, body, q.lane("acme"))
    status, out = dash.post(path + "weight", {"lane": "acme", "value": 7}, token=TOKEN)
    assert out["changed"] == {"weight": {"before": 1, "after": 7}}
    assert f'action queue={qname} weight lane "acme" set 7: {{"weight": {{"after": 7, "before": 1}}}}' in dash.log()
    assert f'action queue={qname} pause lane "acme"' in dash.log()


def test_redrive_and_delete(dash, client, qname):
    q = client.queue(qname)
    ids = [q.enqueue("g", b"x", max_attempts=1) for _ in range(4)]
    for _ in ids:
        q.claim().fail("no")
    path = api(dash, qname, "/actions/")
    status, out = dash.post(path + "redrive", {"ids": [ids[0]]}, token=TOKEN)
    assert status == 200 and out["changed"]["redriven"] == 1
    assert q.job(ids[0]).state == "pending"
    status, out = dash.post(path + "delete", {"id": ids[1]}, token=TOKEN)
    assert status == 200 and q.job(ids[1]) is None
    status, out = dash.post(path + "redrive", {"all": True}, token=TOKEN)
    assert status == 200 and out["changed"]["redriven"] == 2
    assert q.stats().dead == 0
    status, out = dash.post(path + "delete", {"id": ids[1]}, token=TOKEN)
    assert status == 404 and out["error"]
    leased = q.claim()
    status, out = dash.post(path + "delete", {"id": leased.id}, token=TOKEN)
    assert status == 409 and q.job(leased.id).state == "leased"
    assert "redrive jobs [%d]" % ids[0] in dash.log() and "delete job %d" % ids[1] in dash.log()


def test_cancel(dash, client, qname):
    q = client.queue(qname)
    waiting = q.enqueue("g", b"w")
    held_id = q.enqueue("g", b"h")
    path = api(dash, qname, "/actions/cancel")
    status, out = dash.post(path, {"id": waiting, "reason": "not needed"}, token=TOKEN)
    assert status == 200 and out["changed"] == {"canceled": waiting, "was": "pending", "removed": False}
    assert q.job(waiting).last_error == "canceled: not needed"
    held = q.claim()
    assert held.id == held_id
    status, out = dash.post(path, {"id": held_id}, token=TOKEN)
    assert status == 200 and out["changed"]["was"] == "leased"
    held.ack()  # settles as canceled
    assert q.job(held_id).state == "dead"
    done = q.enqueue("g", b"d")
    q.claim().ack()
    status, out = dash.post(path, {"id": done}, token=TOKEN)
    assert status == 409 and "nothing to cancel" in out["error"]
    status, out = dash.post(path, {"id": waiting, "remove": "yes"}, token=TOKEN)
    assert status == 400 and "remove must be" in out["error"]
    assert "cancel job %d" % waiting in dash.log()


def test_cancel_a_flows_parent(dash, client, qname):
    q = client.queue(qname)
    r = q.enqueue_flow(echomq.chord([echomq.step("a"), echomq.step("b")], echomq.step("c")))
    status, out = dash.post(api(dash, qname, "/actions/cancel"), {"id": r.root}, token=TOKEN)
    assert status == 200 and out["changed"] == {"canceled": r.root, "was": "waiting", "removed": False}
    assert all(q.job(j).state == "dead" and q.job(j).last_error == "canceled" for j in r.values())
    assert q.verify() == []


@pytest.mark.parametrize("action,body,token,code,words", [
    ("pause", {"lane": "acme"}, None, 403, "header is missing"),
    ("pause", {"lane": "acme"}, "wrong-token", 403, "does not hold the dashboard's token"),
    ("pause", {"lane": "x" * 300}, TOKEN, 400, "is 300 bytes long"),
    ("pause", {"lane": "bad\nname"}, TOKEN, 400, "contains a control character"),
    ("pause", {"lane": 12}, TOKEN, 400, "group name must be a str"),
    ("pause", {}, TOKEN, 400, "lane is missing"),
    ("weight", {"lane": "acme", "value": 0}, TOKEN, 400, "weight must be in 1.."),
    ("weight", {"lane": "acme", "value": True}, TOKEN, 400, "weight must be an int"),
    ("weight", {"lane": "acme"}, TOKEN, 400, "value is missing"),
    ("limit", {"lane": "acme", "value": -1}, TOKEN, 400, "limit must be in"),
    ("rate", {"lane": "acme", "jobs": 5, "per": 0}, TOKEN, 400, "per must be at least"),
    ("rate", {"lane": "acme", "jobs": 5, "burst": 0}, TOKEN, 400, "burst must be in"),
    ("cap", {"lane": "acme", "value": "10"}, TOKEN, 400, "cap must be an int"),
    ("redrive", {"ids": []}, TOKEN, 400, "ids must be"),
    ("redrive", {"ids": [0]}, TOKEN, 400, "job id must be in"),
    ("redrive", {"all": True, "ids": [1]}, TOKEN, 400, "not both"),
    ("delete", {}, TOKEN, 400, "id is missing"),
    ("delete", {"id": "7"}, TOKEN, 400, "job id must be an int"),
    ("cancel", {}, TOKEN, 400, "id is missing"),
    ("cancel", {"id": 1, "reason": 5}, TOKEN, 400, "reason must be a string"),
    ("explode", {"lane": "acme"}, TOKEN, 404, "no such action 'explode'"),
    ("pause", ["acme"], TOKEN, 400, "must be a JSON object"),
])
def test_bad_actions_are_refused_and_change_nothing(dash, client, qname, resp, action, body, token, code, words):
    q = client.queue(qname)
    q.enqueue("acme", b"x", max_attempts=1)
    q.claim().fail("dead")
    q.enqueue("acme", b"y")
    with unchanged(resp, qname):
        status, out = dash.post(api(dash, qname, f"/actions/{action}"), body, token=token)
    assert status == code and words in out["error"], out


def test_actions_on_an_unknown_queue_bad_json_and_get(dash, client, qname, resp):
    client.queue(qname).enqueue("acme", b"x")
    status, out = dash.post(api(dash, "nowhere-queue", "/actions/pause"), {"lane": "acme"}, token=TOKEN)
    assert status == 404 and "no such queue" in out["error"]
    assert resp.keys("emq:{nowhere-queue}:*") == []
    with unchanged(resp, qname):
        status, _, out = dash.request("POST", api(dash, qname, "/actions/pause"), raw=b"{not json",
                                      headers={"X-EchoMQ-Token": TOKEN})
        assert status == 400 and out["error"] == "the body must be JSON"
        # Never by GET.
        status, _, out = dash.request("GET", api(dash, qname, "/actions/pause") + "?lane=acme")
        assert status == 405 and "POST" in out["error"]


def test_actions_are_off_without_allow_actions(dashboard, client, qname, resp):
    client.queue(qname).enqueue("acme", b"x")
    d = dashboard()  # the token is set, but actions are not allowed
    with unchanged(resp, qname):
        status, out = d.post(api(d, qname, "/actions/pause"), {"lane": "acme"}, token=TOKEN)
    assert status == 403 and "--allow-actions" in out["error"]
    assert d.get("/api/config")[1]["actions"] is False


# -- the command line --------------------------------------------------------------


def _run(args, env_extra: Dict[str, str], wait_for_line: str, timeout: float = 20.0) -> str:
    """Starts the command, reads stdout+stderr until wait_for_line, stops it by PID."""
    import os
    env = {k: v for k, v in os.environ.items() if k != "ECHOMQ_DASHBOARD_TOKEN"}
    env.update(env_extra)
    p = subprocess.Popen([sys.executable, "-m", "echomq", "dashboard", *args], stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
    out = []
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = p.stdout.readline()
            if not line:
                break
            out.append(line)
            if wait_for_line in line:
                break
    finally:
        p.terminate()
        p.wait(timeout=10)
    return "".join(out)


def test_generated_token_is_printed_once_and_works(valkey, client, qname):
    client.queue(qname).enqueue("acme", b"x")
    port = free_port()
    import os
    env = {k: v for k, v in os.environ.items() if k != "ECHOMQ_DASHBOARD_TOKEN"}
    p = subprocess.Popen([sys.executable, "-m", "echomq", "dashboard", valkey.url, "--allow-actions",
                          "--bind", f"127.0.0.1:{port}"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, env=env, text=True)
    try:
        lines = [p.stdout.readline(), p.stdout.readline()]
        assert lines[0].startswith(f"echomq dashboard on http://127.0.0.1:{port}/"), lines
        token = lines[1].rsplit(" ", 1)[1].strip()
        assert lines[1].startswith("actions token") and len(token) >= 24, lines
        d = Dashboard(valkey.url, port=port)
        for _ in range(100):
            try:
                d.get("/api/config")
                break
            except OSError:
                time.sleep(0.1)
        assert d.post(api(d, qname, "/actions/pause"), {"lane": "acme"}, token=TOKEN)[0] == 403
        assert d.post(api(d, qname, "/actions/pause"), {"lane": "acme"}, token=token)[0] == 200
        assert client.queue(qname).lane("acme").paused
    finally:
        p.terminate()
        p.wait(timeout=10)


def test_non_loopback_bind_warns_unless_a_token_is_set(valkey):
    # 192.0.2.1 (TEST-NET-1) is on no interface here: the warning comes
    # before the bind, which then fails, so nothing listens beyond loopback.
    port = free_port()
    out = _run([valkey.url, "--bind", f"192.0.2.1:{port}"], {}, "no such line")
    assert "warning: listening on 192.0.2.1" in out and "ECHOMQ_DASHBOARD_TOKEN" in out, out
    out = _run([valkey.url, "--bind", f"192.0.2.1:{port}"], {"ECHOMQ_DASHBOARD_TOKEN": "t" * 20}, "no such line")
    assert "dashboard on" in out and "warning" not in out, out
    out = _run([valkey.url, "--bind", f"127.0.0.1:{port}"], {}, "dashboard on")
    assert "warning" not in out, out


@pytest.mark.parametrize("args,words", [
    (["--bind", "127.0.0.1"], "--bind must be HOST:PORT"),
    (["--bind", "127.0.0.1:70000"], "--bind must be HOST:PORT"),
    (["bad name!"], "queue name 'bad name!' may hold only"),
    (["--interval", "0"], "--interval must be"),
])
def test_bad_command_lines_exit_2(valkey, args, words):
    p = subprocess.run([sys.executable, "-m", "echomq", "dashboard", valkey.url, *args], capture_output=True,
                       text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert p.returncode == 2 and words in p.stderr, p.stderr


def test_bad_url_exits_2():
    p = subprocess.run([sys.executable, "-m", "echomq", "dashboard", "http://nowhere"], capture_output=True,
                       text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert p.returncode == 2 and p.stderr.strip(), p.stderr


def test_a_job_shows_its_flow(dash, client, qname):
    q = client.queue(qname)
    r = q.enqueue_flow(echomq.chord([echomq.step("a"), echomq.step("b")], echomq.step("sum")))
    first = q.claim()
    first.ack_result(b"r")
    status, body = dash.get(api(dash, qname, f"/jobs/{r.root}"))
    assert status == 200
    flow = body["job"]["flow"]
    assert body["job"]["state"] == "waiting" and flow["parent"] is None and flow["waiting"] == 1
    assert {c["id"]: c["state"] for c in flow["children"]} == {r["job0"]: "completed", r["job1"]: "pending"}
    assert all("result" not in c for c in flow["children"]), "results need --show-payloads"
    status, body = dash.get(api(dash, qname, f"/jobs/{r['job1']}"))
    assert body["job"]["flow"]["parent"] == r.root and body["job"]["flow"]["on_fail"] == "fail"
    q.delete_flow(r.root)
