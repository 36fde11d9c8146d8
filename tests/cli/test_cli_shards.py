"""shards: list a queue's shard queues, create or open a sharded queue, a
refused count (exit 11) that changes nothing, and the other commands on the
sharded queue's name."""

import json

import pytest

from .cli_helpers import OK, USAGE, one_line_error

SHARDS = 11


def test_a_plain_queue_says_so(cli):
    assert cli.ok("shards") == "plain queue (not sharded)\n"
    assert cli.json("shards") == {"queue": cli.queue, "sharded": False, "shards": []}


def test_create_lists_reopens_and_refuses_another_count(cli, db):
    names = cli.ok("shards", "--create", "3").splitlines()
    assert len(names) == 3
    for i, name in enumerate(names):
        assert name.startswith(f"{cli.queue}.s{i}-")
    assert cli.ok("shards").splitlines() == names
    assert cli.json("shards", "--create", "3") == {"queue": cli.queue, "sharded": True, "shards": names}

    before = db.snapshot()
    p = cli.run("shards", "--create", "4")
    assert p.returncode == SHARDS
    err = one_line_error(p)
    assert "shards --create 4" in err and "sharded over 3" in err
    assert db.snapshot() == before


def test_a_plain_queue_in_use_stays_plain(cli, db):
    cli.ok("enqueue", "a", "x")
    before = db.snapshot()
    p = cli.run("shards", "--create", "2")
    assert p.returncode == SHARDS and "plain queue" in one_line_error(p)
    assert db.snapshot() == before
    assert cli.json("shards")["sharded"] is False


@pytest.mark.parametrize("argv, needle", [
    (["shards", "--create", "0"], "--create must be an integer 1..256"),
    (["shards", "--create", "257"], "--create must be an integer 1..256"),
    (["shards", "--create", "three"], "--create must be an integer"),
    (["shards", "extra"], "unexpected argument 'extra'"),
])
def test_bad_arguments_are_usage_errors(cli, db, argv, needle):
    before = db.snapshot()
    p = cli.run(*argv)
    assert p.returncode == USAGE and needle in one_line_error(p)
    assert db.snapshot() == before


def test_the_other_commands_work_on_the_sharded_name(cli):
    shards = cli.ok("shards", "--create", "2").splitlines()
    lines = "".join(f"g{i % 6}\t{i}\n" for i in range(24))
    cli.ok("enqueue", "-", "--lines", input=lines)
    s = cli.json("stats")
    assert (s["pending"], s["lanes"]) == (24, 6)
    per_shard = [cli.run("-q", name, "stats", "--json", queue=False) for name in shards]
    assert all(p.returncode == OK for p in per_shard)
    assert sum(json.loads(p.stdout)["pending"] for p in per_shard) == 24
    for _ in range(24):
        c = cli.json("claim")
        cli.ok("ack", str(c["id"]), str(c["token"]))
    assert cli.run("claim").returncode == 7
    s = cli.json("stats")
    assert (s["pending"], s["leased"], s["acked_total"]) == (0, 0, 24)
    assert cli.run("verify").returncode == OK
    assert cli.json("queues", queue=False) == [cli.queue]  # the shards are not listed
