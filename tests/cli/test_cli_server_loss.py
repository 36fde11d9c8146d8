"""Behaviour against a server of its own: refused authentication, and `top`
riding out the loss of its server."""

import os

import pytest

from emq_valkey import Resp, Server

from .cli_helpers import CONN, OK, Cli, Tmux, one_line_error


@pytest.fixture
def own_server():
    with Server(prefix="emq-cli-own-") as s:
        yield {"url": s.url, "sock": s.sock, "dir": s.dir}


def test_refused_password_is_a_connection_error(own_server):
    r = Resp(own_server["sock"])
    r("CONFIG", "SET", "requirepass", "s3cret")
    r.close()
    host = own_server["url"][len("valkey://"):]
    cli = Cli(own_server["url"], "authq")
    p = cli.run("stats", "--url", f"valkey://default:wrong@{host}")
    assert p.returncode == CONN
    err = one_line_error(p)
    assert "wrong" not in err and "***" in err
    assert cli.run("stats", "--url", f"valkey://default:s3cret@{host}").returncode == OK


def test_top_keeps_running_when_the_server_goes_away(own_server):
    cli = Cli(own_server["url"], "lossq")
    cli.ok("enqueue", "alice", "x")
    cmd = f"{cli.path} -q lossq top --interval 0.2"
    t = Tmux(cmd, {"ECHOMQ_URL": cli.url, "TERM": "xterm-256color"})
    try:
        t.wait_for(lambda s: "alice" in s)
        with open(os.path.join(own_server["dir"], "valkey.pid")) as f:
            os.kill(int(f.read()), 15)
        screen = t.wait_for(lambda s: "error: " in s)
        assert "alice" in screen  # the last good frame stays up
        assert t.alternate_on() == "1"
        t.keys("q")
        screen = t.wait_for(lambda s: "EXIT=" in s)
        assert "EXIT=0" in screen and t.alternate_on() == "0"
    finally:
        t.kill()
