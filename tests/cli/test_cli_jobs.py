"""Job commands: enqueue (argument, stdin, --lines), claim, ack, fail, with
stale and unknown jobs refused by their own exit codes."""

import json
import time

from .cli_helpers import EMPTY, NOT_FOUND, OK, STALE, USAGE, one_line_error


def test_enqueue_forms(cli):
    a = int(cli.ok("enqueue", "alice", "hello"))
    b = int(cli.ok("enqueue", "alice", "-", input="from stdin\nline two"))
    c = int(cli.ok("enqueue", "alice"))
    assert a < b < c
    assert cli.json("enqueue", "alice", "j")["group"] == "alice"
    payloads = [cli.json("claim")["payload"] for _ in range(4)]
    assert payloads == ["hello", "from stdin\nline two", "", "j"]


def test_enqueue_lines_in_chunks(cli):
    text = "".join(f"job {i}\n" for i in range(250)) + "\n\r\n"
    out = cli.json("enqueue", "bulk", "--lines", "--chunk", "100", input=text)
    assert out["enqueued"] == 250 and out["last_id"] - out["first_id"] == 249
    assert cli.json("lane", "bulk")["depth"] == 250
    assert cli.json("claim")["payload"] == "job 0"
    out = cli.ok("enqueue", "-", "--lines", input="x\tone\ny\ttwo\nx\tthree\n")
    assert out.startswith("enqueued 3 jobs (ids ")
    assert cli.json("lane", "x")["depth"] == 2 and cli.json("lane", "y")["depth"] == 1


def test_enqueue_lines_bad_line_sends_nothing(cli, db):
    cli.ok("enqueue", "seed", "x")
    before = db.snapshot()
    p = cli.run("enqueue", "-", "--lines", input="x\tok\nno tab here\n")
    assert p.returncode == USAGE
    assert "line 2" in one_line_error(p)
    p = cli.run("enqueue", "-", "--lines", input="x\tok\n\x01bad\tgroup\n")
    assert p.returncode == USAGE and "contains a control character" in one_line_error(p)
    big = "a" * (1024 * 1024 + 1)
    p = cli.run("enqueue", "alice", "-", input=big)
    assert p.returncode == USAGE and "over the limit" in one_line_error(p)
    assert db.snapshot() == before


def test_enqueue_delay_and_max_attempts(cli):
    cli.ok("enqueue", "alice", "later", "--delay", "60")
    s = cli.json("stats")
    assert s["delayed"] == 1 and s["pending"] == 0
    assert cli.run("claim").returncode == EMPTY
    cli.ok("enqueue", "alice", "now", "--max-attempts", "9")
    assert cli.json("claim")["max_attempts"] == 9


def test_enqueue_cost_estimate(cli, db, queue):
    cli.ok("cost-mode", "10")
    jid = int(cli.ok("enqueue", "alice", "dear", "--cost-estimate", "100"))
    assert db("HGET", f"emq:{{{queue}}}:est", str(jid)) == b"100"
    cli.ok("claim")
    assert float(db("HGET", f"emq:{{{queue}}}:gvt", "alice")) == 100  # charged at the claim
    before = db.snapshot()
    p = cli.run("enqueue", "alice", "x", "--cost-estimate", "0")
    assert p.returncode == USAGE and "--cost-estimate" in one_line_error(p)
    assert db.snapshot() == before


def test_claim_ack(cli):
    jid = int(cli.ok("enqueue", "alice", "work"))
    out = cli.ok("claim", "--lease", "10")
    fields = dict(line.split(None, 1) for line in out.splitlines())
    assert fields["id"] == str(jid) and fields["lane"] == "alice"
    token = int(fields["token"])
    assert 1 <= token < 2**53 and fields["attempt"] == "1/3"
    assert fields["payload"] == "work"
    assert cli.json("stats")["leased"] == 1
    assert cli.ok("ack", jid, token) == f"acked job {jid}\n"
    s = cli.json("stats")
    assert s["leased"] == 0 and s["acked_total"] == 1
    # A second ack: the job is settled, so the lease is gone (exit 5, as
    # docs/cli.md says), although `job` shows it completed when retained.
    p = cli.run("ack", jid, token)
    assert p.returncode == STALE, p.stderr
    assert f"ack job {jid}" in one_line_error(p)
    p = cli.run("ack", jid + 100, token)  # an id never minted
    assert p.returncode == NOT_FOUND and f"job {jid + 100}" in one_line_error(p)


def test_stale_token_refused(cli, db):
    jid = int(cli.ok("enqueue", "alice", "work"))
    old = cli.json("claim", "--lease", "0.2")
    time.sleep(0.4)
    job = cli.json("claim")  # the expired lease came back: attempt 2
    assert job["id"] == jid and job["attempt"] == 2 and job["token"] != old["token"]
    before = db.snapshot()
    for argv in (["ack", jid, old["token"]], ["fail", jid, old["token"]], ["ack", jid, 2]):
        p = cli.run(*argv)
        assert p.returncode == STALE, (argv, p.stderr)
        assert f"job {jid}" in one_line_error(p)
    assert db.snapshot() == before
    assert cli.run("ack", jid, job["token"]).returncode == OK


def test_fail_outcomes(cli):
    jid = int(cli.ok("enqueue", "alice", "w", "--max-attempts", "3"))
    job = cli.json("claim")
    assert cli.ok("fail", jid, job["token"]) == f"job {jid}: back in its lane\n"
    job = cli.json("claim")
    assert job["attempt"] == 2
    out = cli.json("fail", jid, job["token"], "--retry-in", "30", "--reason", "later")
    assert out == {"id": jid, "outcome": "delayed"}
    assert cli.json("stats")["delayed"] == 1


def test_claim_wait_returns_empty_after_timeout(cli):
    t0 = time.monotonic()
    p = cli.run("claim", "--wait", "0.3")
    assert p.returncode == EMPTY
    assert time.monotonic() - t0 >= 0.25
    cli.ok("enqueue", "alice", "x")
    assert cli.json("claim", "--wait", "5")["payload"] == "x"


def test_weighted_claim_takes_weight_jobs_from_one_lane(cli):
    cli.ok("enqueue", "-", "--lines", input="".join(f"a\ta{i}\n" for i in range(5)) + "b\tb0\nb\tb1\n")
    cli.ok("weight", "a", "3")
    jobs = cli.json("claim", "--max", "10")
    assert [j["payload"] for j in jobs] == ["a0", "a1", "a2"]  # weight 3, one lane, mint order
    jobs = cli.json("claim", "--max", "10")
    assert [j["payload"] for j in jobs] == ["b0"]  # weight 1
    out = cli.ok("claim", "--max", "2")
    assert out.count("lane      a\n") == 2 and "\n\nid" in out
    p = cli.run("claim", "--max", "0")
    assert p.returncode == USAGE and "--max must be an integer 1..10000" in one_line_error(p)
    p = cli.run("claim", "--max", "2", "--wait", "1")
    assert p.returncode == USAGE


def test_claim_json_with_nothing_to_claim_prints_json(cli):
    # --json always prints one JSON value on stdout, also when the exit code is 7.
    for args, empty in ((("claim",), None), (("claim", "--wait", "0.1"), None), (("claim", "--max", "4"), [])):
        p = cli.run(*args, "--json")
        assert p.returncode == EMPTY, args
        assert json.loads(p.stdout) == empty, (args, p.stdout)
        assert "no job ready" in one_line_error(p)
    cli.ok("enqueue", "alice", "x")
    assert cli.json("claim")["payload"] == "x"


def test_enqueue_name_and_headers(cli, db):
    jid = int(cli.ok("enqueue", "alice", "x", "--name", "email:send", "--header", "tenant=acme",
                     "--header", "trace=a=b"))
    job = cli.json("job", str(jid))
    assert job["name"] == "email:send" and job["headers"] == {"tenant": "acme", "trace": "a=b"}
    out = cli.json("enqueue", "bulk", "--lines", "--name", "report", "--header", "k=v", input="1\n2\n")
    for i in range(out["first_id"], out["last_id"] + 1):
        assert cli.json("job", str(i))["name"] == "report"
        assert cli.json("job", str(i))["headers"] == {"k": "v"}
    assert cli.json("job", str(int(cli.ok("enqueue", "alice", "plain"))))["name"] == ""
    before = db.snapshot()
    for bad, says in [(["--header", "novalue"], "KEY=VALUE"), (["--header", "=v"], "KEY=VALUE"),
                      (["--header", "k=1", "--header", "k=2"], "given twice"), (["--name", ""], "empty"),
                      (["--name", "n" * 129], "name"), (["--header", "k=a\x01b"], "control")]:
        p = cli.run("enqueue", "alice", "x", *bad)
        assert p.returncode == USAGE, (bad, p.returncode, p.stderr)
        assert says in one_line_error(p), (bad, one_line_error(p))
    assert db.snapshot() == before  # refused before anything was written
