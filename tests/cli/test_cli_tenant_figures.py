"""Tenant figures that add up in the CLI (`lanes`, `lane`, `stats`, `top`,
`stats --format prometheus`): a tenant's own row T/ is never counted as a
lane, a lane's share is of the queue and shown beside its share within its
tenant, and the fair shares follow the hierarchy."""

from .cli_helpers import OK, samples



def load(cli):
    """acme: 10 lanes of 4 jobs; solo: one lane of 40. 40 plain claims
    alternate the two tenants (the outer ring): 20 for solo/main, 2 for
    each acme lane."""
    cli.ok("wait-figures", "60")
    lines = "".join(f"acme/u{i}\tj\n" for i in range(10) for _ in range(4)) + "solo/main\tj\n" * 40
    cli.ok("enqueue", "-", "--lines", input=lines)
    for _ in range(40):
        cli.json("claim", "--lease", "300")


def test_lane_counts_leave_the_tenants_own_rows_out(cli):
    load(cli)
    st = cli.json("stats")
    assert (st["lanes"], st["tenants"]) == (11, 2)
    text = cli.ok("stats")
    assert "\nlanes          11\ntenants        2\n" in text, text
    top = cli.ok("top", "--once").splitlines()
    assert top[1].split()[:4] == ["lanes", "11", "tenants", "2"], top[1]
    out = cli.ok("lanes", "--limit", "0").splitlines()
    assert out[-1] == "11 lanes, 2 tenants"
    assert len(out) == 1 + 13 + 1  # head, 11 lanes and 2 tenant rows, the count


def test_shares_are_of_the_queue_beside_the_share_in_the_tenant(cli):
    load(cli)
    rows = {r["group"]: r for r in cli.json("lanes", "--limit", "0")["lanes"]}
    assert rows["acme/"]["share"] == 0.5 and rows["solo/"]["share"] == 0.5  # among tenants and plain lanes
    assert rows["acme/u3"]["share"] == 0.05 and rows["acme/u3"]["share_in_tenant"] == 0.1
    assert rows["solo/main"]["share"] == 0.5 and rows["solo/main"]["share_in_tenant"] == 1.0
    assert rows["acme/"]["fair_share"] == 0.5 and rows["acme/u3"]["fair_share"] == 0.05
    assert rows["solo/main"]["fair_share"] == 0.5
    assert abs(sum(r["share"] for g, r in rows.items() if not r["is_tenant"]) - 1.0) < 1e-9
    text = cli.ok("lanes", "--limit", "0", "--sort", "name").splitlines()
    head = text[0].split()
    assert head[-4:] == ["SHARE", "IN", "TENANT", "FAIR"], head
    u3 = next(line.split() for line in text if line.strip().startswith("acme/u3"))
    assert u3[-3:] == ["5.0%", "10.0%", "5.0%"], u3
    assert "5.0% of the queue (2 claims in the window), 10.0% of tenant acme, fair 5.0%" in cli.ok("lane", "acme/u3")
    top = cli.ok("top", "--once", "--limit", "30")
    assert "IN TENANT" in top


def test_lanes_says_when_more_rows_exist_and_how_to_see_them(cli):
    cli.ok("enqueue", "-", "--lines", input="".join(f"lane{i:02d}\tj\n" for i in range(25)))
    out = cli.ok("lanes").splitlines()
    assert len(out) == 1 + 20 + 1
    assert out[-1] == "20 of 25 rows shown, by depth (--limit N shows more, --limit 0 all)"
    out = cli.ok("lanes", "--sort", "name", "--limit", "5").splitlines()
    assert out[-1] == "more rows follow 'lane04' (--limit N shows more, --limit 0 all)"
    assert cli.json("lanes", "--sort", "name", "--limit", "5")["more"] is True
    all_rows = cli.ok("lanes", "--limit", "0").splitlines()
    assert len(all_rows) == 1 + 25  # nothing left out, nothing to say
    assert cli.json("lanes", "--limit", "25")["more"] is False


def test_prometheus_text_keeps_tenants_apart_and_adds_up(cli):
    load(cli)
    got = samples(cli.ok("stats", "--format", "prometheus", "--top", "20"))
    q = ("queue", cli.queue)
    assert got[("echomq_lanes", (q,))] == 11 and got[("echomq_tenants", (q,))] == 2
    lane_share = {dict(k[1])["lane"]: v for k, v in got.items() if k[0] == "echomq_lane_window_share"}
    assert len(lane_share) == 11 and abs(sum(lane_share.values()) - 1.0) < 1e-9
    assert got[("echomq_tenant_window_share", (q, ("tenant", "acme")))] == 0.5
    assert got[("echomq_tenant_fair_share", (q, ("tenant", "solo")))] == 0.5
    assert got[("echomq_lane_fair_share", (("lane", "acme/u0"), q, ("tenant", "acme")))] == 0.05
    depth = sum(v for k, v in got.items() if k[0] == "echomq_lane_depth")
    assert depth == got[("echomq_jobs", (q, ("state", "pending")))]
    assert cli.run("verify").returncode == OK
