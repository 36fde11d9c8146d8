"""echomq cancel, burst, lifecycle, and enqueue --timeout/--ttl/--expires-at/--expire-drop."""

import time

from .cli_helpers import NOT_FOUND, OK, USAGE, one_line_error

FINISHED = 16


def test_cancel_waiting_leased_and_finished(cli):
    cli.ok("enqueue", "g", "a")
    cli.ok("enqueue", "g", "b")
    assert cli.ok("cancel", "1", "--reason", "why") == "job 1 (pending) canceled: dead-lettered\n"
    assert cli.ok("cancel", "1") == "job 1 (dead) canceled before: nothing changed\n"
    job = cli.json("claim")
    assert cli.json("cancel", str(job["id"])) == {"id": 2, "was": "leased", "result": "marked: it settles as canceled"}
    p = cli.run("ack", str(job["id"]), str(job["token"]))  # settles as canceled, and says so
    assert p.returncode == 1 and "the job was canceled: it settled as canceled" in one_line_error(p)
    assert cli.json("job", "2")["state"] == "dead"
    cli.ok("enqueue", "g", "c")
    c = cli.json("claim")
    cli.ok("ack", str(c["id"]), str(c["token"]))
    p = cli.run("cancel", str(c["id"]))
    assert p.returncode == FINISHED and "has finished" in one_line_error(p)
    p = cli.run("cancel", "99")
    assert p.returncode == NOT_FOUND
    p = cli.run("cancel", "0")
    assert p.returncode == USAGE


def test_cancel_a_flows_parent_cancels_what_has_not_run(cli, server, queue):
    import echomq  # the flow is made through the library: the CLI shows and cancels flows

    with echomq.connect(server["url"]) as c:
        r = c.queue(queue).enqueue_flow(echomq.chord([echomq.step("a"), echomq.step("b")], echomq.step("c")))
    assert cli.ok("cancel", str(r.root)) == (
        f"job {r.root} (waiting) canceled: dead-lettered, with the jobs below it that had not run\n"
    )
    for jid in r.values():
        assert cli.json("job", str(jid))["state"] == "dead"
    assert cli.run("claim").returncode != OK


def test_enqueue_limits_and_expiry(cli):
    cli.ok("enqueue", "g", "late", "--ttl", "0.1")
    cli.ok("enqueue", "g", "gone", "--ttl", "0.1", "--expire-drop")
    cli.ok("enqueue", "g", "ok", "--timeout", "5")
    time.sleep(0.25)
    p = cli.run("claim", "--json")
    if p.returncode != OK:  # the first claim swept the expired ones ("more due now")
        p = cli.run("claim", "--json")
    assert p.returncode == OK and b"\"payload\":\"ok\"" in p.stdout.replace(b" ", b"")
    assert cli.json("job", "1")["last_error"] == "expired"
    assert cli.run("enqueue", "g", "x", "--expire-drop").returncode == USAGE
    assert cli.run("enqueue", "g", "x", "--ttl", "1", "--expires-at", "2030-01-01T00:00:00Z").returncode == USAGE
    assert cli.run("enqueue", "g", "x", "--timeout", "-1").returncode == USAGE


def test_burst_and_lifecycle_settings(cli):
    assert cli.ok("burst", "busy", "1", "3") == "busy: limit 1, bursts to 3\n"
    assert cli.run("burst", "busy", "3", "2").returncode == USAGE
    assert cli.json("lane", "busy")["limit"] == 1
    out = cli.json("lifecycle", "--timeout", "30", "--queue-limit", "4", "--queue-rate", "10/1:20")
    assert (out["default_timeout_ms"], out["queue_limit"], out["rate_jobs"], out["rate_period_ms"],
            out["rate_burst"]) == (30000, 4, 10, 1000, 20)
    out = cli.json("lifecycle", "--timeout", "none", "--queue-limit", "none", "--queue-rate", "none")
    assert (out["default_timeout_ms"], out["queue_limit"], out["rate_jobs"]) == (0, 0, 0)
    assert cli.run("lifecycle", "--queue-rate", "10").returncode == USAGE
