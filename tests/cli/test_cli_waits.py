"""Wait figures and tenant rows in the CLI: `wait-figures`, the figure
columns of `lanes`, `lane` and `top --once` (shown only while some lane has
them), tenant rows with their lanes indented, and the Prometheus series."""

from .cli_helpers import USAGE, samples



def claim_all(cli, n):
    for _ in range(n):
        cli.json("claim")


def test_wait_figures_shows_sets_and_clears(cli):
    assert cli.ok("wait-figures") == "wait figures: off\n"
    assert cli.json("wait-figures", "60") == {"queue": cli.queue, "wait_figures": True, "window_s": 60}
    assert cli.ok("wait-figures") == "wait figures: on, window 60 s\n"
    assert cli.run("wait-figures", "0").returncode == USAGE  # 'off' turns them off, not 0
    assert cli.run("wait-figures", "86401").returncode == USAGE
    assert cli.json("wait-figures", "off")["wait_figures"] is False


def test_lanes_show_figures_only_when_recorded(cli):
    cli.ok("enqueue", "a", "--lines", input="1\n2\n")
    claim_all(cli, 1)
    head = cli.ok("lanes").splitlines()[0].split()
    assert "P99" not in head and "SHARE" not in head
    lane = cli.json("lane", "a")
    assert lane["wait_p50_ms"] is None and lane["share"] is None and lane["tenant"] is None

    cli.ok("wait-figures", "60")
    claim_all(cli, 1)
    head = cli.ok("lanes").split("\n")[0]
    assert "WAIT P50" in head and "WAIT P99" in head and "SHARE" in head and "FAIR" in head
    lane = cli.json("lane", "a")
    assert lane["wait_samples"] == 1 and lane["window_claims"] == 1
    assert lane["wait_p50_ms"] > 0 and lane["share"] == 1.0 and lane["fair_share"] == 1.0
    text = cli.ok("lane", "a")
    assert "1 first claims" in text and "100.0% of the queue (1 claims in the window), fair 100.0%" in text
    assert "WAIT P99" in cli.ok("top", "--once").split("\n")[4]


def test_tenant_rows_list_their_lanes_indented(cli):
    cli.ok("wait-figures", "60")
    for g in ("t/a", "t/b", "p", "u/x"):
        cli.ok("enqueue", g, "--lines", input="1\n2\n")
    cli.ok("weight", "t/", "2", "--force")  # the tenant's own row (a setting of its own)
    claim_all(cli, 4)
    rows = [line for line in cli.ok("lanes", "--sort", "name").splitlines()[1:]]
    assert rows.pop() == "4 lanes, 2 tenants"  # the count: t/ and u/ are no lanes
    names = [r.split()[0] for r in rows]
    # u/ is listed while its lane has live jobs, as t/ is by its setting.
    assert names == ["p", "t/", "t/a", "t/b", "u/", "u/x"]
    indented = {r.split()[0]: r.startswith("  ") for r in rows}
    assert indented == {"p": False, "t/": False, "t/a": True, "t/b": True, "u/": False, "u/x": True}, rows
    got = {r["group"]: r for r in cli.json("lanes", "--sort", "name")["lanes"]}
    assert got["t/"]["is_tenant"] is True and got["t/"]["tenant"] == "t"
    assert got["t/a"]["tenant"] == "t" and got["t/a"]["is_tenant"] is False and got["p"]["tenant"] is None
    assert got["t/"]["window_claims"] == got["t/a"]["window_claims"] + got["t/b"]["window_claims"]
    top = cli.ok("top", "--once", "--sort", "name").splitlines()
    assert any(line.startswith("  t/a") for line in top), top
    assert "tenant        t" in cli.ok("lane", "t/a")


def test_prometheus_lane_series_carry_tenant_and_figures(cli):
    cli.ok("wait-figures", "60")
    cli.ok("enqueue", "t/a", "--lines", input="1\n2\n3\n")
    cli.ok("enqueue", "p", "--lines", input="1\n2\n")
    claim_all(cli, 2)
    got = samples(cli.ok("stats", "--format", "prometheus", "--top", "10"))
    q = ("queue", cli.queue)
    assert got[("echomq_lane_depth", (("lane", "t/a"), q, ("tenant", "t")))] == 2
    assert got[("echomq_lane_depth", (("lane", "p"), q, ("tenant", "")))] == 1
    assert got[("echomq_lane_window_share", (("lane", "p"), q, ("tenant", "")))] == 0.5
    assert got[("echomq_lane_fair_share", (("lane", "p"), q, ("tenant", "")))] == 0.5
    p99 = got[("echomq_lane_wait_seconds", (("lane", "p"), ("quantile", "0.99"), q, ("tenant", "")))]
    assert 0 < p99 < 60
