"""Read-only commands: stats, lanes, lane, dead, verify, text and --json."""

import base64
import json
import random
import re
import unicodedata

from .cli_helpers import NOT_FOUND, OK, USAGE, VIOLATIONS, one_line_error


def load(cli, lanes):
    """Enqueue lanes {group: depth} with one --lines bulk load."""
    text = "".join(f"{g}\tjob-{g}-{i}\n" for g, n in lanes.items() for i in range(n))
    cli.ok("enqueue", "-", "--lines", input=text)


def test_stats_text_and_json(cli):
    load(cli, {"alice": 3, "bob": 2, "carol": 1})
    cli.ok("pause", "carol")
    job = cli.json("claim")
    s = cli.json("stats")
    assert s["queue"] == cli.queue
    assert s["lanes"] == 3
    assert s["ring"] == 2  # alice and bob; carol is paused
    assert s["paused"] == 1
    assert s["pending"] == 5
    assert s["leased"] == 1
    assert s["delayed"] == 0 and s["dead"] == 0
    assert s["served_total"] == 1 and s["enqueued_total"] == 6
    assert s["default_weight"] == 1 and s["default_limit"] is None
    assert s["server_time_ms"] > 1_600_000_000_000
    out = cli.ok("stats")
    assert f"queue          {cli.queue}" in out
    assert "\npending        5\n" in out
    assert "\nleased         1\n" in out
    assert "\nin ring        2\n" in out
    assert "served         1 total" in out
    assert job["group"] in ("alice", "bob")


def test_lanes_sorted_and_limited(cli):
    load(cli, {"a": 1, "b": 5, "c": 3, "d": 3})
    rows = cli.json("lanes")["lanes"]
    assert [r["group"] for r in rows] == ["b", "c", "d", "a"]  # depth desc, ties by name
    assert [r["depth"] for r in rows] == [5, 3, 3, 1]
    rows = cli.json("lanes", "--limit", "2")["lanes"]
    assert [r["group"] for r in rows] == ["b", "c"]
    rows = cli.json("lanes", "--sort", "name", "--limit", "3")["lanes"]
    assert [r["group"] for r in rows] == ["a", "b", "c"]
    # Two claims rotate the ring a -> b: each lane got one lease.
    cli.ok("claim")
    cli.ok("claim")
    rows = cli.json("lanes", "--sort", "active")["lanes"]
    assert [(r["group"], r["active"]) for r in rows[:2]] == [("a", 1), ("b", 1)]
    rows = cli.json("lanes", "--sort", "served")["lanes"]
    assert {r["group"] for r in rows if r["served"] == 1} == {"a", "b"}
    out = cli.ok("lanes", "--sort", "name").splitlines()
    assert out[0].split() == ["LANE", "DEPTH", "ACTIVE/LIMIT", "WEIGHT", "RATE", "CAP", "PAUSED", "SERVED"]
    assert out[1].split() == ["a", "0", "1/-", "1", "-", "-", "no", "1"]
    assert out[2].split() == ["b", "4", "1/-", "1", "-", "-", "no", "1"]


def columns(text):
    """Terminal columns of text: wide (CJK, emoji) 2, combining marks and
    format characters 0, else 1."""
    w = 0
    for ch in text:
        if unicodedata.category(ch) in ("Mn", "Me", "Cf"):
            continue
        w += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return w


def test_lanes_table_aligns_wide_and_combining_names(cli):
    names = ["acme", "\U0001F680rocket", "\u65e5\u672c\u8a9e", "e\u0301clair", "\U0001F469\u200d\U0001F4BBdev", "zz"]
    load(cli, {n: i + 1 for i, n in enumerate(names)})
    lines = cli.ok("lanes", "--sort", "name").splitlines()
    assert len(lines) == 1 + len(names)
    # DEPTH is right-aligned: its last column is the same on every row when
    # widths are counted in terminal columns (bytes or code points shift the
    # rows of the emoji, CJK and combining names).
    ends = {columns(re.match(r"\S+\s+\S+", line).group(0)) for line in lines}
    assert len(ends) == 1, lines
    assert {line.split()[0] for line in lines[1:]} == set(names)
    # The lane column is as wide as the widest name: 6 CJK columns + 2 spaces.
    assert columns(lines[0][:lines[0].index("DEPTH")]) == max(columns(n) for n in names) + 2


def test_lanes_walks_many_pages_with_a_bounded_top(cli):
    rnd = random.Random(7)
    depths = {f"t{i:04d}": rnd.randint(1, 9) for i in range(1500)}
    load(cli, depths)
    expect = sorted(depths.items(), key=lambda kv: (-kv[1], kv[0]))[:25]
    got = cli.json("lanes", "--limit", "25", "--page", "64")["lanes"]
    assert [(r["group"], r["depth"]) for r in got] == expect
    every = cli.json("lanes", "--limit", "0", "--page", "100", "--sort", "name")["lanes"]
    assert [r["group"] for r in every] == sorted(depths)


def test_lane_detail_with_oldest_age(cli, db):
    cli.ok("enqueue", "alice", "first")
    cli.ok("enqueue", "alice", "second")
    cli.ok("limit", "alice", "4")
    cli.ok("weight", "alice", "3")
    lane = cli.json("lane", "alice")
    assert lane["group"] == "alice"
    assert lane["depth"] == 2 and lane["active"] == 0
    assert lane["limit"] == 4 and lane["limit_is_default"] is False
    assert lane["weight"] == 3 and lane["weight_is_default"] is False
    assert lane["paused"] is False and lane["serviceable"] is True
    # Age from the server's clock: TIME now minus the head job's enqueue time.
    secs, micros = db("TIME")
    now = int(secs) * 1000 + int(micros) // 1000
    assert 0 <= lane["oldest_age_ms"] <= now - lane["oldest_enqueued_at_ms"] + 1000
    out = cli.ok("lane", "alice")
    assert "depth    2" in out
    assert "limit    4\n" in out
    assert "weight   3\n" in out
    assert " ago\n" in out


def test_lane_unknown_is_not_found(cli):
    cli.ok("enqueue", "alice", "x")
    p = cli.run("lane", "nobody")
    assert p.returncode == NOT_FOUND
    assert one_line_error(p) == f"echomq: no such lane 'nobody' in queue '{cli.queue}'"
    p = cli.run("lane", "nobody", "--json")
    assert p.returncode == NOT_FOUND and p.stdout == b""


def test_dead_listing_and_redrive(cli):
    ids = [int(cli.ok("enqueue", "alice", f"p{i}", "--max-attempts", "1")) for i in range(3)]
    for _ in ids:
        job = cli.json("claim")
        assert cli.json("fail", job["id"], job["token"], "--reason", "boom")["outcome"] == "dead"
    dead = cli.json("dead")["jobs"]
    assert [j["id"] for j in dead] == ids
    assert all(j["last_error"] == "boom" and j["dead_at_ms"] for j in dead)
    assert [j["payload"] for j in dead] == ["p0", "p1", "p2"]
    assert [j["id"] for j in cli.json("dead", "--limit", "1", "--offset", "1")["jobs"]] == [ids[1]]
    text = cli.ok("dead").splitlines()
    assert text[0].split()[:4] == ["ID", "LANE", "ATTEMPTS", "DIED"]
    assert text[1].split()[:3] == [str(ids[0]), "alice", "1/1"]
    assert "boom" in text[1]
    assert cli.json("redrive", ids[0], 999999) == {"redriven": 1}
    assert cli.json("stats")["dead"] == 2
    assert cli.ok("redrive", "--all") == "redriven 2 jobs\n"
    s = cli.json("stats")
    assert s["dead"] == 0 and s["pending"] == 3
    assert cli.json("dead")["jobs"] == []


def test_verify_healthy_and_broken(cli, db, queue):
    cli.ok("enqueue", "alice", "x")
    assert cli.ok("verify") == f"ok: queue '{queue}' keeps its invariants\n"
    assert cli.json("verify") == {"queue": queue, "ok": True, "violations": []}
    # Break I1 behind the library's back: a lane in the ring that has no jobs.
    db("RPUSH", f"emq:{{{queue}}}:ring", "ghost")
    p = cli.run("verify")
    assert p.returncode == VIOLATIONS
    assert "ghost" in p.stdout.decode()
    assert "violation" in one_line_error(p)
    p = cli.run("verify", "--json")
    assert p.returncode == VIOLATIONS
    report = json.loads(p.stdout)
    assert report["ok"] is False and any("ghost" in v for v in report["violations"])


def test_binary_payload_in_json(cli):
    cli.ok("enqueue", "alice", "-", input=b"\xff\x00bin")
    job = cli.json("claim")
    assert "payload" not in job
    assert base64.b64decode(job["payload_base64"]) == b"\xff\x00bin"
    assert cli.run("lanes").returncode == OK


def test_doctor_lines_json_and_exit_code(cli):
    """doctor on the test server: one line per check; the fixture server has
    no persistence and no replica, so it warns (exit 8)."""
    p = cli.run("doctor")
    out = p.stdout.decode()
    assert p.returncode == 8, (out, p.stderr.decode())
    lines = out.splitlines()
    checks = [line.split(" ", 2)[1].rstrip(":") for line in lines]
    assert checks == ["version", "memory", "persistence", "replicas", "cluster", "acl"]
    assert all(line.split(" ")[0] in ("ok", "warn", "fail") for line in lines)
    assert lines[2].startswith("warn persistence: none")
    assert lines[3].startswith("warn replicas: none connected")
    assert lines[5].startswith("ok acl: user 'default' may enqueue, claim and settle")
    p = cli.run("doctor", "--json")
    assert p.returncode == 8
    j = json.loads(p.stdout)
    assert j["queue"] == cli.queue and j["worst"] == "warn"
    assert [c["check"] for c in j["checks"]] == checks
    assert [c["level"] for c in j["checks"]] == [line.split(" ")[0] for line in lines]
    p = cli.run("doctor", "--acl-user", "no-such-user-here")
    assert p.returncode == 8
    assert "warn acl: cannot check the permissions of user 'no-such-user-here'" in p.stdout.decode()


def test_repair_dry_run_then_apply(cli, db, queue):
    cli.ok("enqueue", "alice", "x")
    cli.ok("enqueue", "bob", "y")
    assert cli.ok("repair") == f"ok: queue '{queue}' needs no repair\n"
    db("RPUSH", f"emq:{{{queue}}}:ring", "alice")  # a duplicate ring entry
    db("HINCRBY", f"emq:{{{queue}}}:glive", "bob", "3")  # glive drift
    p = cli.run("repair")  # a dry run: reports, writes nothing, exits as verify does
    assert p.returncode == VIOLATIONS
    out = p.stdout.decode()
    assert "ring: lane alice was in the ring 2 times, now once" in out
    assert "glive: lane bob 4 -> 1" in out
    assert "--apply" in one_line_error(p)
    assert cli.run("verify").returncode == VIOLATIONS
    report = json.loads(cli.run("repair", "--json", "--step", "1").stdout)
    assert report["applied"] is False and len(report["changes"]) == 2
    assert cli.ok("repair", "--apply") == out
    assert cli.run("verify").returncode == OK
    assert cli.json("repair", "--apply") == {"queue": queue, "applied": True, "changes": []}
    assert cli.run("repair", "--step", "0").returncode == USAGE
