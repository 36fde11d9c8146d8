"""Outcomes in the CLI: outcomes (retention, events), ack --result, job on a
completed job, wait with its exit codes, events [--follow] [--json]."""

import json
import subprocess
import time

from .cli_helpers import NOT_FOUND, OK, USAGE, cli_path, one_line_error

PENDING, DEAD, OFF = 12, 13, 14


def test_retained_job_shows_its_result_and_wait_returns_at_once(cli):
    cli.ok("outcomes", "--keep", "60", "--events", "1000")
    jid = int(cli.ok("enqueue", "g", "hello"))
    c = cli.json("claim")
    cli.ok("progress", str(jid), str(c["token"]), "3/4")
    assert cli.json("job", str(jid))["progress"] == "3/4"
    assert cli.run("progress", str(jid), str(c["token"] + 1), "x").returncode == 5
    p = cli.run("wait", str(jid), "--timeout", "0.1")
    assert p.returncode == PENDING and "had not finished" in one_line_error(p)
    cli.ok("ack", str(jid), str(c["token"]), "--result", "forty-two")
    j = cli.json("job", str(jid))
    assert (j["state"], j["result"], j["group"]) == ("completed", "forty-two", "g")
    assert j["finished_at_ms"] >= j["started_at_ms"] >= j["enqueued_at_ms"]
    assert "result    forty-two" in cli.ok("job", str(jid))
    w = cli.json("wait", str(jid), "--timeout", "0")
    assert w["state"] == "completed"
    events = [json.loads(line) for line in cli.ok("events", "--json").splitlines()]
    assert [e["type"] for e in events if e.get("id") == jid] == ["claimed", "progress", "completed"]
    assert cli.run("wait", "99999", "--timeout", "0").returncode == NOT_FOUND


def test_wait_blocks_until_the_job_dies_and_follow_prints_new_events(cli):
    cli.ok("outcomes", "--events", "100")
    jid = int(cli.ok("enqueue", "g", "x", "--max-attempts", "1"))
    env = {"ECHOMQ_URL": cli.url}
    base = [str(cli_path()), "-q", cli.queue]
    waiter = subprocess.Popen(base + ["wait", str(jid), "--timeout", "20", "--json"], stdout=subprocess.PIPE, env=env)
    follower = subprocess.Popen(base + ["events", "--follow"], stdout=subprocess.PIPE, env=env)
    time.sleep(0.4)
    c = cli.json("claim")
    cli.ok("fail", str(jid), str(c["token"]), "--reason", "broken")
    out, _ = waiter.communicate(timeout=10)
    assert waiter.returncode == DEAD
    assert json.loads(out)["state"] == "dead"
    time.sleep(0.3)
    follower.terminate()
    lines = follower.communicate(timeout=10)[0].decode().splitlines()
    assert any("type=claimed" in line for line in lines)
    assert any("type=dead" in line and "reason=broken" in line for line in lines)


def test_bad_outcome_settings_are_usage_errors(cli):
    for args in (["outcomes", "--events-enqueued"], ["outcomes", "--keep", "0"], ["outcomes", "--last", "0"], ["outcomes", "--events", "0"],
                 ["outcomes", "--keep", "-5"], ["wait", "0"], ["wait", "1", "--timeout", "x"]):
        p = cli.run(*args)
        assert p.returncode == USAGE, (args, p.stderr)
    jid = int(cli.ok("enqueue", "g", "x"))
    c = cli.json("claim")
    p = cli.run("ack", str(jid), str(c["token"]), "--result", "r" * 65537)
    assert p.returncode == USAGE
    assert cli.json("job", str(jid))["state"] == "leased"
    assert cli.run("ack", str(jid), str(c["token"])).returncode == OK


def test_outcomes_without_options_shows_the_settings(cli):
    assert cli.ok("outcomes") == f"queue      {cli.queue}\nretention  off\nevents     off\n"
    assert cli.json("outcomes") == {"queue": cli.queue, "changed": False, "retention": None, "events": None}
    out = cli.ok("outcomes", "--keep", "3600", "--last", "500", "--events", "2000", "--events-enqueued")
    assert out == f"queue      {cli.queue}\nretention  for 1h00m, the last 500\nevents     on, about 2,000 entries, enqueues too\n"
    assert cli.json("outcomes") == {"queue": cli.queue, "changed": False,
                                    "retention": {"keep_s": 3600, "last": 500},
                                    "events": {"max_len": 2000, "enqueued": True}}
    assert cli.json("outcomes", "--no-retention", "--no-events")["retention"] is None


def test_events_on_a_queue_whose_stream_is_off_says_so(cli):
    cli.ok("enqueue", "g", "x")
    for args in (["events"], ["events", "--follow"], ["events", "--json"]):
        p = cli.run(*args, timeout=10)
        assert p.returncode == OFF and p.stdout == b"", (args, p)
        err = one_line_error(p)
        assert "event stream of queue" in err and "is off" in err and "outcomes --events" in err, err
    # What a stream turned off still holds is printed first.
    cli.ok("outcomes", "--events", "100")
    cli.json("claim")
    cli.ok("outcomes", "--no-events")
    p = cli.run("events")
    assert p.returncode == OFF and b"type=claimed" in p.stdout


def test_events_json_gives_numbers_as_numbers(cli):
    cli.ok("outcomes", "--events", "100")
    jid = int(cli.ok("enqueue", "42", "x"))  # a lane named like a number stays a string
    c = cli.json("claim")
    cli.ok("fail", str(jid), str(c["token"]), "--reason", "no", "--retry-in", "5")
    cli.ok("purge", "42")
    events = [json.loads(line) for line in cli.ok("events", "--json").splitlines()]
    claimed = next(e for e in events if e["type"] == "claimed")
    assert claimed["id"] == jid and claimed["lane"] == "42" and claimed["attempt"] == 1
    assert isinstance(claimed["time"], int) and isinstance(claimed["stream_id"], str)
    failed = next(e for e in events if e["type"] == "failed")
    assert failed["retry"] == 5000 and failed["reason"] == "no"
    purged = next(e for e in events if e["type"] == "purged")
    assert purged["id"] is None and purged["count"] == 1 and purged["attempt"] == 0


def test_job_shows_a_result_dropped(cli):
    # A Worker whose handler returned what could not be kept: the job
    # completed, and `job` says why it has no result.
    import echomq

    cli.ok("outcomes", "--keep", "60")
    jid = int(cli.ok("enqueue", "g", "x"))
    with echomq.connect(cli.url) as client:
        echomq.Worker(client.queue(cli.queue), lambda job: {1, 2}, concurrency=1,
                      idle_timeout=0.3).run(handle_signals=False)
    j = cli.json("job", str(jid))
    assert j["state"] == "completed" and j["result"] == ""
    assert j["result_dropped"].startswith("cannot encode the result: TypeError")
    assert "result    dropped: cannot encode the result: TypeError" in cli.ok("job", str(jid))
