"""Tenants from the CLI: a lane "T/L" belongs to tenant T, whose own controls
are set on its name "T/" (docs/architecture.md, "Lanes inside tenants")."""

from .cli_helpers import EMPTY, one_line_error


def test_tenant_limit_and_pause_from_the_cli(cli):
    for lane in ("acme/a", "acme/b"):
        for i in range(3):
            cli.ok("enqueue", lane, f"{lane}{i}")
    cli.ok("enqueue", "solo", "s")
    lane = cli.json("limit", "acme/", "1")
    assert lane["limit"] == 1 and lane["group"] == "acme/"
    got = [cli.json("claim")["group"] for _ in range(2)]
    assert sorted(got) == ["acme/a", "solo"]
    p = cli.run("claim")
    assert p.returncode == EMPTY  # acme is at its limit across both lanes
    assert cli.json("lane", "acme/")["active"] == 1
    cli.ok("limit", "acme/", "none")
    cli.ok("pause", "acme/")
    assert cli.run("claim").returncode == EMPTY  # the whole tenant is parked
    cli.ok("resume", "acme/")
    assert cli.json("claim")["group"] in ("acme/a", "acme/b")
    cli.ok("verify")  # exit 6 on a violation of either ring


def test_a_tenant_name_takes_no_job(cli):
    p = cli.run("enqueue", "acme/", "x")
    assert p.returncode != 0
    assert "names a tenant" in one_line_error(p)
