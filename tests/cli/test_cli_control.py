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


def test_rate_throttle_and_cap(cli):
    for i in range(3):
        cli.ok("enqueue", "alice", f"a{i}")
    cli.ok("enqueue", "bob", "b0")
    lane = cli.json("rate", "alice", "1", "60", "--burst", "1")
    assert lane["rate"] == {"jobs": 1, "period_ms": 60000, "burst": 1}
    assert lane["rate_is_default"] is False and lane["tokens"] == 1.0
    got = [cli.json("claim")["group"] for _ in range(2)]
    assert sorted(got) == ["alice", "bob"]  # alice's one token, then it waits
    assert cli.run("claim").returncode == EMPTY
    lane = cli.json("lane", "alice")
    assert lane["serviceable"] is False and lane["next_token_at_ms"] is not None
    assert cli.json("rate", "alice", "none")["rate"] is None
    assert cli.json("claim")["group"] == "alice"  # free again at once
    # A hand-set throttle, then a cap.
    assert cli.json("throttle", "alice", "30")["serviceable"] is False
    assert cli.run("claim").returncode == EMPTY
    assert cli.json("cap", "alice", "1")["cap"] == 1
    p = cli.run("enqueue", "alice", "over")
    assert p.returncode != OK and "cap is 1" in one_line_error(p)
    assert cli.json("lane", "alice")["depth"] == 1  # nothing written
    assert cli.json("cap", "alice", "none")["cap"] is None
    cli.ok("enqueue", "alice", "fits")
    out = cli.ok("lanes").splitlines()
    assert out[0].split()[4:6] == ["RATE", "CAP"]


def test_rate_cap_bad_values_are_usage_errors(cli):
    cli.ok("enqueue", "alice", "x")
    for args in (["rate", "alice", "0", "1"], ["rate", "alice", "5", "0"], ["rate", "alice", "5"],
                 ["cap", "alice", "0"], ["throttle", "alice", "-1"], ["defaults", "--rate", "5"]):
        p = cli.run(*args)
        assert p.returncode == 2, args
    assert cli.json("lane", "alice")["rate"] is None and cli.json("lane", "alice")["cap"] is None


def test_lane_with_only_delayed_jobs_is_known(cli):
    cli.ok("enqueue", "later", "x", "--delay", "60")
    lane = cli.json("lane", "later")
    assert lane["known"] is True and lane["delayed"] == 1


def test_cost_mode_shows_sets_and_clears(cli):
    assert cli.ok("cost-mode") == "cost mode: off (turns count jobs)\n"
    got = cli.json("cost-mode", "2000")
    assert got == {"queue": cli.queue, "cost_mode": True, "quantum": 2000}
    assert cli.ok("cost-mode") == "cost mode: on, quantum 2000\n"
    assert cli.run("cost-mode", "0").returncode != 0  # 'off' turns it off, not 0
    assert cli.json("cost-mode", "off")["cost_mode"] is False
