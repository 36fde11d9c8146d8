"""Lane control: pause, resume, weight, limit and the queue defaults change
what the server does, and the output shows the new state."""

from .cli_helpers import EMPTY, OK, one_line_error


def test_pause_and_resume_change_service(cli):
    cli.ok("enqueue", "alice", "a1")
    cli.ok("enqueue", "bob", "b1")
    out = cli.ok("pause", "alice")
    assert out.startswith("lane alice: paused,") and "in ring no" in out
    assert cli.json("claim")["group"] == "bob"
    p = cli.run("claim")
    assert p.returncode == EMPTY  # alice is paused, bob is empty
    assert "no job ready" in one_line_error(p)
    assert cli.json("lane", "alice")["paused"] is True
    assert cli.ok("pause", "alice").startswith("lane alice: paused")  # idempotent
    out = cli.ok("resume", "alice")
    assert out.startswith("lane alice: running,") and "in ring yes" in out
    assert cli.json("claim")["group"] == "alice"


def test_limit_caps_concurrency_and_none_clears(cli):
    for i in range(3):
        cli.ok("enqueue", "alice", f"a{i}")
    lane = cli.json("limit", "alice", "1")
    assert lane["limit"] == 1 and lane["limit_is_default"] is False
    cli.ok("claim")
    assert cli.run("claim").returncode == EMPTY  # at the ceiling
    assert cli.json("lane", "alice")["serviceable"] is False
    lane = cli.json("limit", "alice", "none")
    assert lane["limit"] is None and lane["limit_is_default"] is True
    assert lane["serviceable"] is True
    cli.ok("claim")
    assert cli.json("lane", "alice")["active"] == 2


def test_weight_set_and_back_to_default(cli):
    cli.ok("enqueue", "alice", "x")
    assert cli.ok("weight", "alice", "5").startswith("lane alice: running, weight 5,")
    assert cli.json("lane", "alice")["weight"] == 5
    lane = cli.json("weight", "alice", "default")
    assert lane["weight"] == 1 and lane["weight_is_default"] is True


def test_force_configures_a_lane_before_its_first_job(cli):
    lane = cli.json("limit", "newco", "2", "--force")
    assert lane["limit"] == 2
    assert cli.json("pause", "newco", "-f")["paused"] is True
    # Now the lane has settings of its own, so it is known without --force.
    assert cli.json("lane", "newco")["paused"] is True
    assert cli.run("resume", "newco").returncode == OK


def test_defaults_show_and_set(cli):
    assert cli.json("defaults") == {"queue": cli.queue, "weight": 1, "limit": None,
                                    "max_attempts": 3}
    out = cli.ok("defaults", "--weight", "2", "--limit", "7", "--max-attempts", "5")
    assert out == "defaults: weight 2, limit 7, max attempts 5\n"
    cli.ok("enqueue", "alice", "x")
    lane = cli.json("lane", "alice")
    assert lane["weight"] == 2 and lane["weight_is_default"] is True
    assert lane["limit"] == 7 and lane["limit_is_default"] is True
    assert cli.json("claim")["max_attempts"] == 5
    assert cli.json("defaults", "--limit", "none")["limit"] is None
