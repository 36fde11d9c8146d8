"""echomq schedule add|rm|ls|pause|resume|next, and enqueue --at."""

import datetime
import time

from .cli_helpers import NOT_FOUND, OK, USAGE, one_line_error


def test_add_is_idempotent_and_ls_next_show_it(cli):
    out = cli.ok("schedule", "add", "nightly", "--lane", "reports", "--cron", "0 3 * * *", "--zone", "Europe/Paris",
                 "--payload", "build")
    assert out.startswith("schedule nightly created; next tick ")
    again = cli.json("schedule", "add", "nightly", "--lane", "reports", "--cron", "0 3 * * *", "--zone",
                     "Europe/Paris", "--payload", "build")
    assert again["changed"] == "unchanged" and again["next"] == out.split("next tick ")[1].strip()
    ticks = cli.json("schedule", "next", "nightly", "-n", "3")
    assert len(ticks) == 3 and ticks[0] == again["next"]
    assert all(t[11:19] in ("01:00:00", "02:00:00") for t in ticks)  # 03:00 in Paris, in UTC
    rows = cli.json("schedule", "ls")
    assert [r["name"] for r in rows] == ["nightly"]
    r = rows[0]
    assert (r["cron"], r["zone"], r["lane"], r["payload"], r["runs"], r["last_outcome"]) == (
        "0 3 * * *", "Europe/Paris", "reports", "build", 0, None)
    text = cli.ok("schedule", "ls")
    assert "nightly" in text and "cron '0 3 * * *' Europe/Paris" in text and "armed" in text
    cli.ok("schedule", "pause", "nightly")
    assert cli.json("schedule", "ls")[0]["paused"] is True
    assert "paused" in cli.ok("schedule", "ls")
    cli.ok("schedule", "resume", "nightly")
    assert cli.ok("schedule", "rm", "nightly") == "schedule nightly removed\n"
    p = cli.run("schedule", "rm", "nightly")
    assert p.returncode == NOT_FOUND and "not found" in one_line_error(p)
    assert cli.ok("schedule", "ls").startswith("no schedules")


def test_a_claim_fires_the_tick_and_ls_shows_it(cli):
    cli.ok("schedule", "add", "fast", "--lane", "L", "--every", "0.2", "--payload", "tick", "--overlap", "skip")
    time.sleep(0.35)
    job = cli.json("claim")
    assert job["group"] == "L" and job["payload"] == "tick"
    row = cli.json("schedule", "ls")[0]
    assert row["runs"] == 1 and row["fired_job"] == job["id"] and row["last_outcome"] == "running"
    assert row["lateness_ms"] >= 0 and row["overlap"] == "skip"
    cli.ok("ack", str(job["id"]), str(job["token"]))
    assert cli.json("schedule", "ls")[0]["last_outcome"] == "done"
    cli.ok("schedule", "rm", "fast")
    while cli.run("claim", "--json").returncode == OK:
        pass


def test_bad_schedules_are_usage_errors_that_name_the_problem(cli):
    cases = [
        (["schedule", "add", "s", "--lane", "L", "--cron", "0 25 * * *"], "hour field '25'"),
        (["schedule", "add", "s", "--lane", "L", "--cron", "* * * * *", "--zone", "Mars/Base"], "unknown zone"),
        (["schedule", "add", "s", "--lane", "L"], "exactly one of --every and --cron"),
        (["schedule", "add", "s", "--every", "1"], "--lane is required"),
        (["schedule", "add", "s", "--lane", "L", "--every", "0"], "--every"),
        (["schedule", "add", "a b", "--lane", "L", "--every", "1"], "bad name"),
        (["schedule", "add", "s", "--lane", "L", "--every", "1", "--zone", "UTC"], "--zone goes with --cron"),
        (["schedule", "add", "s", "--lane", "L", "--every", "1", "--start", "tomorrow"], "RFC 3339"),
        (["schedule", "add", "s", "--lane", "L", "--every", "1", "--start", "2030-01-02T00:00:00Z",
          "--end", "2030-01-01T00:00:00Z"], "end_at_ms is not after start_at_ms"),
        (["schedule", "add", "s", "--lane", "L", "--cron", "0 0 30 2 *"], "never fires"),
        (["schedule", "frob"], "unknown subcommand"),
        (["schedule", "rm"], "give the schedule's NAME"),
        (["schedule", "ls", "--lane", "L"], "--lane goes with 'schedule add'"),
    ]
    for argv, says in cases:
        p = cli.run(*argv)
        assert p.returncode == USAGE, (argv, p.returncode, p.stderr)
        assert says in one_line_error(p), (argv, one_line_error(p))
    assert cli.ok("schedule", "ls").startswith("no schedules")


def test_enqueue_at(cli):
    past = (datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=1)).isoformat()
    later = "2999-01-01T00:00:00Z"
    pid = int(cli.ok("enqueue", "L", "now", "--at", past))
    p = cli.run("enqueue", "L", "x", "--at", later)
    assert p.returncode == USAGE and "ahead" in one_line_error(p)  # past the longest delay
    soon = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=1)).strftime(
        "%Y-%m-%dT%H:%M:%S+00:00")
    lid = int(cli.ok("enqueue", "L", "later", "--at", soon))
    assert cli.json("job", str(lid))["state"] == "delayed"
    assert cli.json("claim")["id"] == pid
    p = cli.run("enqueue", "L", "x", "--at", "2030-01-01T00:00:00")
    assert p.returncode == USAGE and "RFC 3339" in one_line_error(p)
    p = cli.run("enqueue", "L", "x", "--at", soon, "--delay", "1")
    assert p.returncode == USAGE and "--delay or --at" in one_line_error(p)
    cli.ok("delete", str(lid))
