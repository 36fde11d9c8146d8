"""`echomq stats --format prometheus`: valid OpenMetrics text whose figures
match a known queue, with the top lanes by depth (bounded)."""


from .cli_helpers import OK, USAGE, samples



def test_prometheus_text_matches_the_queue(cli):
    cli.ok("enqueue", "big", "--lines", input="".join(f"{i}\n" for i in range(5)))
    cli.ok("enqueue", "mid", "--lines", input="a\nb\n")
    cli.ok("enqueue", 'odd "lane"\\x', "z")
    cli.ok("enqueue", "later", "d", "--delay", "60")
    c = cli.json("claim")
    cli.ok("ack", str(c["id"]), str(c["token"]))
    cli.json("claim")
    text = cli.ok("stats", "--format", "prometheus", "--top", "2")
    assert text.endswith("# EOF\n")
    got = samples(text)
    q = ("queue", cli.queue)
    assert got[("echomq_jobs", (q, ("state", "pending")))] == 6
    assert got[("echomq_jobs", (q, ("state", "leased")))] == 1
    assert got[("echomq_jobs", (q, ("state", "delayed")))] == 1
    assert got[("echomq_enqueued_total", (q,))] == 9
    assert got[("echomq_acked_total", (q,))] == 1
    assert got[("echomq_lanes", (q,))] == 4
    depth = {dict(k[1])["lane"]: v for k, v in got.items() if k[0] == "echomq_lane_depth"}
    assert depth == {"big": 4, "mid": 1}, "the two deepest lanes only (ties by name)"
    all_lanes = samples(cli.ok("stats", "--format", "prometheus", "--top", "100"))
    names = {dict(k[1])["lane"] for k in all_lanes if k[0] == "echomq_lane_depth"}
    assert 'odd "lane"\\x' in names and "later" not in names  # escaped; no pending job, no series


def test_prometheus_format_usage(cli):
    assert cli.run("stats", "--format", "xml").returncode == USAGE
    assert cli.run("stats", "--top", "3").returncode == USAGE
    assert cli.run("stats", "--format", "prometheus", "--top", "101").returncode == USAGE
    assert cli.run("stats", "--format", "prometheus").returncode == OK
