"""Everyday operations: enqueue --key, job, delete, purge, queues, fail
--no-retry, and the truthful attempt after a redrive."""

import time

from .cli_helpers import NOT_FOUND, OK, USAGE, one_line_error

LEASED = 10


def test_enqueue_with_a_key_adds_one_job(cli):
    first = cli.json("enqueue", "a", "x", "--key", "order-1")
    assert first["duplicate"] is False
    again = cli.json("enqueue", "b", "y", "--key", "order-1")
    assert again == {"id": first["id"], "group": "b", "duplicate": True}
    text = cli.ok("enqueue", "a", "x", "--key", "order-1")
    assert text.startswith(f"{first['id']} (duplicate") and "nothing added" in text
    assert cli.json("stats")["pending"] == 1
    p = cli.run("enqueue", "a", "x", "--dedup-window", "5")
    assert p.returncode == USAGE and "--key" in one_line_error(p)
    p = cli.run("enqueue", "a", "x", "--key", "k" * 257)
    assert p.returncode == USAGE


def test_job_shows_every_state(cli):
    jid = int(cli.ok("enqueue", "lane-a", "hello", "--max-attempts", "2"))
    j = cli.json("job", str(jid))
    assert (j["state"], j["group"], j["payload"], j["token"]) == ("pending", "lane-a", "hello", 0)
    assert "none yet, max 2" in cli.ok("job", str(jid))
    c = cli.json("claim")
    assert cli.json("job", str(jid))["state"] == "leased"
    cli.ok("fail", str(jid), str(c["token"]), "--reason", "boom", "--retry-in", "60")
    j = cli.json("job", str(jid))
    assert j["state"] == "delayed" and j["due_at_ms"] > j["enqueued_at_ms"]
    text = cli.ok("job", str(jid))
    assert "delayed (due in" in text and "boom" in text
    p = cli.run("job", "99999")
    assert p.returncode == NOT_FOUND and "no job 99999" in one_line_error(p)


def test_delete_and_no_retry(cli):
    keep = int(cli.ok("enqueue", "a", "leased"))
    gone = int(cli.ok("enqueue", "b", "pending"))
    c = cli.json("claim")
    assert c["id"] == keep
    p = cli.run("delete", str(keep))
    assert p.returncode == LEASED and "leased by a worker" in one_line_error(p)
    assert cli.ok("delete", str(gone)).strip() == f"deleted job {gone}"
    assert cli.run("delete", str(gone)).returncode == NOT_FOUND
    out = cli.json("fail", str(keep), str(c["token"]), "--no-retry", "--reason", "never")
    assert out["outcome"] == "dead"
    assert cli.json("job", str(keep))["state"] == "dead"
    cli.ok("delete", str(keep))
    s = cli.json("stats")
    assert (s["pending"], s["leased"], s["dead"]) == (0, 0, 0)
    assert cli.run("verify").returncode == OK


def test_purge_keeps_settings_unless_asked(cli):
    cli.ok("enqueue", "big", "--lines", input="".join(f"{i}\n" for i in range(25)))
    cli.ok("enqueue", "big", "later", "--delay", "60")
    cli.ok("enqueue", "small", "keep")
    cli.ok("weight", "big", "3")
    out = cli.json("purge", "big", "--step", "4")
    assert out == {"group": "big", "deleted": 26, "settings_cleared": False}
    lane = cli.json("lane", "big")
    assert lane["depth"] == 0 and lane["weight"] == 3
    assert "0 waiting jobs deleted, settings cleared" in cli.ok("purge", "big", "--clear-settings")
    assert cli.run("lane", "big").returncode == NOT_FOUND  # no job, no setting: forgotten
    assert cli.json("lane", "small")["depth"] == 1
    assert cli.run("verify").returncode == OK


def test_queues_needs_no_queue(cli):
    cli.ok("enqueue", "a", "x")
    assert cli.run("-q", "other-queue", "enqueue", "a", "x", queue=False).returncode == OK
    names = cli.json("queues", queue=False)
    assert cli.queue in names and "other-queue" in names and names == sorted(names)
    assert cli.queue in cli.ok("queues", queue=False).splitlines()


def test_attempts_after_a_redrive_are_truthful(cli):
    jid = int(cli.ok("enqueue", "a", "x", "--max-attempts", "2"))
    for token in (1, 2):
        c = cli.json("claim")
        cli.ok("fail", str(jid), str(c["token"]))
    cli.ok("redrive", str(jid))
    c = cli.json("claim")
    assert (c["attempt"], c["max_attempts"]) == (1, 2)  # the first of a fresh budget
    cli.ok("fail", str(jid), str(c["token"]))
    text = cli.ok("claim")
    assert "attempt   2/2" in text
    token = next(line.split()[1] for line in text.splitlines() if line.startswith("token"))
    cli.ok("fail", str(jid), token)
    dead = cli.ok("dead")
    assert " 2/2 " in dead and "4/2" not in dead


def test_a_stale_ack_says_what_happened(cli):
    jid = int(cli.ok("enqueue", "a", "x"))
    first = cli.json("claim", "--lease", "0.05")
    cli.ok("pause", "a")
    time.sleep(0.1)
    assert cli.run("claim").returncode == 7  # brings the expired lease back to its paused lane
    p = cli.run("ack", str(jid), str(first["token"]))
    assert p.returncode == 5
    err = one_line_error(p)
    t1 = first["token"]
    assert f"no longer leased with token {t1}: it is back in its lane" in err and "current" not in err
    cli.ok("resume", "a")
    again = cli.json("claim")
    p = cli.run("ack", str(jid), str(t1))
    err = one_line_error(p)
    assert p.returncode == 5 and f"token {t1} is stale" in err and f"current token {again['token']}" in err
    cli.ok("ack", str(jid), str(again["token"]))


def test_job_shows_its_name_and_headers(cli, server, queue):
    import echomq

    with echomq.connect(server["url"]) as c:
        jid = c.queue(queue).enqueue("a", "x", name="email:send", headers={"tenant": "acme"})
        plain = c.queue(queue).enqueue("a", "y")
    j = cli.json("job", str(jid))
    assert (j["name"], j["headers"]) == ("email:send", {"tenant": "acme"})
    assert cli.json("job", str(plain))["headers"] == {}
    text = cli.ok("job", str(jid))
    assert "name      email:send" in text and "header    tenant: acme" in text
