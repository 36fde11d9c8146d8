"""Help, argument checking and connection errors: every refusal gives its
documented exit code and one line on stderr, and changes nothing."""

import json
import re
import socket

import pytest

from .cli_helpers import CONN, NOT_FOUND, OK, USAGE, Cli, one_line_error

COMMANDS = ["stats", "lanes", "lane", "pause", "resume", "weight", "limit", "defaults", "shards",
            "enqueue", "claim", "ack", "fail", "dead", "redrive", "verify", "top"]


def test_general_help_lists_every_command(cli):
    p = cli.run("--help", queue=False)
    assert p.returncode == OK
    out = p.stdout.decode()
    for name in COMMANDS:
        assert f"\n  {name} " in out, name
    assert "exit codes" in out


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_has_help(cli, name):
    # No server is needed for help: point at an unreachable one to prove it.
    p = cli.run(name, "--help", queue=False, env={"ECHOMQ_URL": "valkey://127.0.0.1:1"})
    assert p.returncode == OK, p.stderr
    out = p.stdout.decode()
    assert out.startswith(f"usage: echomq [-q QUEUE] {name}")
    assert "--queue" in out


def test_version(cli):
    p = cli.run("--version", queue=False)
    assert p.returncode == OK
    assert p.stdout.decode().startswith("echomq 0.")


@pytest.mark.parametrize("argv, needle", [
    ([], "no command"),
    (["frobnicate"], "unknown command 'frobnicate'"),
    (["stats", "--bogus"], "unknown option '--bogus'"),
    (["lanes", "--sort", "size"], "--sort must be"),
    (["lanes", "--limit", "ten"], "--limit must be an integer"),
    (["lane"], "missing argument"),
    (["lane", "a", "b"], "unexpected argument 'b'"),
    (["weight", "alice", "-1"], "weight must be an integer 1..1000000 (got '-1')"),
    (["weight", "alice", "0"], "weight must be an integer 1..1000000"),
    (["weight", "alice", "2.5"], "weight must be an integer"),
    (["limit", "alice", "-3"], "limit must be an integer 1..1000000000"),
    (["limit", "alice", "lots"], "limit must be an integer"),
    (["defaults", "--weight", "1", "--limit", "x"], "--limit must be an integer"),
    (["claim", "--lease", "-5"], "--lease must be seconds"),
    (["claim", "--lease", "0"], "--lease must be seconds"),
    (["claim", "--wait", "abc"], "--wait must be seconds"),
    (["ack", "12", "x"], "TOKEN must be an integer"),
    (["ack", "0", "1"], "ID must be an integer"),
    (["fail", "1", "1", "--retry-in", "soon"], "--retry-in must be seconds"),
    (["redrive"], "give job ids or --all"),
    (["redrive", "5", "--all"], "not both"),
    (["enqueue", "bad\x01group", "x"], "contains a control character"),
    (["enqueue", "g", "x", "--delay", "-1"], "--delay must be seconds"),
    (["enqueue", "g", "x", "--chunk", "5"], "--chunk needs --lines"),
    (["stats", "--json", "extra"], "unexpected argument 'extra'"),
    (["pause", "alice", "--json=yes"], "takes no value"),
    (["top", "--json"], "--json needs --once"),
    (["ack", "1", "1", "--sort", "x"], "unknown option '--sort'"),
])
def test_bad_arguments_are_usage_errors_before_any_io(cli, db, argv, needle):
    cli.ok("enqueue", "alice", "seed")
    before = db.snapshot()
    # An unreachable server: a usage error must win, proving nothing was sent.
    p = cli.run(*argv, env={"ECHOMQ_URL": "valkey://127.0.0.1:1"})
    assert p.returncode == USAGE, (argv, p.returncode, p.stderr)
    assert needle in one_line_error(p)
    assert p.stdout == b""
    # And against the real server, still refused and nothing changed.
    p = cli.run(*argv)
    assert p.returncode == USAGE
    assert db.snapshot() == before


def test_missing_and_bad_queue_names(cli):
    p = cli.run("stats", queue=False)
    assert p.returncode == USAGE
    assert "no queue given" in one_line_error(p)
    p = cli.run("-q", "bad{name}", "stats", queue=False)
    assert p.returncode == USAGE
    assert "queue name 'bad{name}' may hold only A-Z a-z 0-9 _ . - (found '{')" in one_line_error(p)
    p = cli.run("-q", "x" * 129, "stats", queue=False)
    assert p.returncode == USAGE


def test_queue_from_environment_and_option_after_command(cli):
    cli.ok("enqueue", "alice", "one")
    out = cli.run("stats", "--json", queue=False, env={"ECHOMQ_QUEUE": cli.queue})
    assert out.returncode == OK
    p = cli.run("stats", "-q", cli.queue, "--json", queue=False)
    assert p.returncode == OK
    a, b = json.loads(out.stdout), json.loads(p.stdout)
    a.pop("server_time_ms"), b.pop("server_time_ms")
    assert a == b and a["queue"] == cli.queue and a["pending"] == 1


@pytest.mark.parametrize("url", ["http://127.0.0.1:6379", "valkey://", "valkey://host:notaport",
                                 "unix://"])
def test_bad_url_is_a_usage_error(cli, db, url):
    cli.ok("enqueue", "alice", "seed")
    before = db.snapshot()
    p = cli.run("pause", "alice", "--url", url)
    assert p.returncode == USAGE, (url, p.returncode, p.stderr)
    assert "bad server URL" in one_line_error(p)
    assert db.snapshot() == before


def test_password_is_not_shown_in_errors(cli):
    p = cli.run("stats", "--url", "valkey://user:hunter2@127.0.0.1:1")
    assert p.returncode == CONN
    err = one_line_error(p)
    assert "hunter2" not in err and "***" in err


def test_sentinel_password_is_not_shown_in_errors(cli):
    p = cli.run("stats", "--url", "valkey+sentinel://:hunter2@127.0.0.1:1/emq?sentinel_password=swordfish")
    assert p.returncode == CONN
    err = one_line_error(p)
    assert "hunter2" not in err and "swordfish" not in err and "***" in err
    assert "no Sentinel named the primary 'emq'" in err


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.mark.parametrize("argv", [["stats"], ["lanes"], ["pause", "alice"], ["claim"],
                                  ["verify"], ["top", "--once"]])
def test_unreachable_server_is_a_connection_error(cli, argv):
    url = f"valkey://127.0.0.1:{free_port()}"
    p = cli.run(*argv, env={"ECHOMQ_URL": url})
    assert p.returncode == CONN, (argv, p.returncode, p.stderr)
    err = one_line_error(p)
    assert "cannot connect to " + url in err


def test_url_option_beats_environment(cli, server):
    cli.ok("enqueue", "alice", "x")
    p = cli.run("stats", "--url", server["url"], env={"ECHOMQ_URL": "valkey://127.0.0.1:1"})
    assert p.returncode == OK


def test_unix_socket_url(cli, server):
    cli.ok("enqueue", "alice", "x")
    s = cli.json("stats", "--url", "unix://" + server["sock"])
    assert s["pending"] == 1


def test_a_new_lane_is_configured_with_a_note(cli, db):
    # One rule everywhere (the bindings too): a setting may come before a
    # lane's first job. A name typed by hand may be a typo: a note says the
    # lane is new, and --force says it is meant.
    cli.ok("enqueue", "alice", "x")
    p = cli.run("lane", "alcie")  # looking at it is another thing: no such lane
    assert p.returncode == NOT_FOUND and "no such lane 'alcie'" in one_line_error(p)
    for argv in (["resume", "alcie"], ["pause", "bobb"], ["weight", "carl", "3"]):
        p = cli.run(*argv)
        assert p.returncode == OK, (argv, p.stderr)
        assert f"note: lane '{argv[1]}' is new in queue" in p.stderr.decode()
    assert cli.json("lane", "carl")["weight"] == 3, "configured before its first job"
    assert cli.run("weight", "carl", "4").stderr == b"", "a lane with a setting of its own is known"
    p = cli.run("limit", "dave", "2", "--force")
    assert p.returncode == OK and p.stderr == b""
    assert cli.run("limit", "alice", "2").stderr == b"", "a lane with jobs is known"


def test_a_tls_url_works_and_a_refusal_exits_3():
    """valkeys:// from --url and ECHOMQ_URL: verified against the test CA;
    another CA is exit 3 with OpenSSL's reason on one line."""
    from emq_valkey import TlsServer

    with TlsServer(prefix="emq-cli-tls-") as s:
        cli = Cli(s.url, "clitls")
        assert cli.ok("enqueue", "tenant", "hello").strip() == "1"  # the job id
        assert "tenant" in cli.ok("lanes")
        bad = Cli(f"{s.base}?ca={s.cert('other-ca.pem')}", "clitls")
        p = bad.run("stats")
        assert p.returncode == CONN
        err = one_line_error(p)
        assert "TLS handshake" in err and "not trusted" in err, err
        p = Cli(f"{s.url}&nope=1", "clitls").run("stats")
        assert p.returncode == USAGE
        assert "unknown query parameter 'nope'" in one_line_error(p)


def command_names(cli):
    text = cli.ok("--help", queue=False)
    block = text.split("commands:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in block.splitlines()], block


def test_help_lists_every_command_apart_from_its_summary_and_the_version(cli):
    names, block = command_names(cli)
    assert "wait-figures" in names and "top" in names
    for line in block.splitlines():
        name = line.split()[0]
        assert line.startswith("  " + name + "  "), line  # never 'wait-figuresshow'
    summaries = {re.match(r"  \S+\s+", line).end() for line in block.splitlines()}
    assert len(summaries) == 1  # one column
    text = cli.ok("--help", queue=False)
    assert "--version" in text and "print the version" in text
    assert cli.ok("--version", queue=False).startswith("echomq ")


def test_each_command_help_shows_its_options_in_the_usage_and_its_exit_codes(cli):
    names, _ = command_names(cli)
    own = {"claim": "7 nothing to claim", "events": "14 the event stream is off", "verify": "6 violations",
           "wait": "13 the job died", "delete": "10 leased", "doctor": "8 warnings", "lane": "4 unknown lane",
           "ack": "5 stale token", "shards": "11 sharded with another count"}
    for name in names:
        text = cli.ok(name, "--help", queue=False)
        usage = text.splitlines()[0]
        assert "\nexit codes: 0 ok, 1 server failure, 2 usage, 3 connection" in text, name
        if name in own:
            assert own[name] in text.split("exit codes:", 1)[1], (name, text)
        options = text.split("\noptions:\n", 1)[1].split("\n\n", 1)[0] if "\noptions:\n" in text else ""
        flags = set(re.findall(r"--[a-z-]+", options))
        # A usage line that names options names them all (top's --interval
        # and --limit, lanes' --page).
        if "--" in usage:
            missing = {f for f in flags if f not in usage}
            assert not missing, (name, usage, missing)
    assert "--interval" in cli.ok("top", "--help", queue=False).splitlines()[0]
    assert "--page" in cli.ok("lanes", "--help", queue=False).splitlines()[0]
