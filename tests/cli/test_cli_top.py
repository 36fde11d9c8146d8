"""`echomq top`: the --once frame, and the live full-screen view driven in
tmux (keys, refresh, quitting, and leaving the alternate screen)."""

import os
import shlex
import subprocess
import threading
import time

import pytest

from .cli_helpers import TMUX, USAGE, Tmux, one_line_error


def test_top_once_frame(cli):
    cli.ok("enqueue", "-", "--lines", input="deep\t1\ndeep\t2\ndeep\t3\nshallow\t1\n")
    cli.ok("limit", "deep", "4")
    cli.ok("claim")
    lines = cli.ok("top", "--once").splitlines()
    assert lines[0].startswith(f"echomq top  queue {cli.queue}  ") and "sort: depth" in lines[0]
    assert "[q] quit" not in lines[0]
    assert lines[1].split() == ["lanes", "2", "ring", "2", "paused", "0", "pending", "3",
                                "leased", "1", "delayed", "0", "dead", "0"]
    assert lines[2].startswith("served 1  rate -")
    header = lines.index(next(l for l in lines if l.startswith("LANE")))
    rows = [l.split() for l in lines[header + 1:]]
    assert rows[0][:6] == ["deep", "2", "1/4", "1", "1", "-"]
    assert rows[1][:6] == ["shallow", "1", "0/-", "1", "0", "-"]
    rows = cli.ok("top", "--once", "--sort", "name", "--limit", "1").splitlines()
    assert rows[-1].split()[0] == "deep" and "shallow" not in "".join(rows)
    frame = cli.json("top", "--once")
    assert frame["pending"] == 3 and [l["group"] for l in frame["lanes"]] == ["deep", "shallow"]


def test_top_without_terminal_needs_once(cli):
    p = cli.run("top")
    assert p.returncode == USAGE
    assert "needs a terminal" in one_line_error(p)


@pytest.fixture
def tmux_top(cli):
    sessions = []

    def start(*args):
        cmd = " ".join(shlex.quote(str(a)) for a in [cli.path, "-q", cli.queue, "top", *args])
        t = Tmux(cmd, {"ECHOMQ_URL": cli.url, "TERM": "xterm-256color"})
        sessions.append(t)
        return t

    yield start
    for t in sessions:
        t.kill()


def test_top_live_view_keys_and_quit(cli, tmux_top):
    assert os.access(TMUX, os.X_OK), "tmux is required for this test"
    cli.ok("enqueue", "-", "--lines", input="".join(f"busy\t{i}\n" for i in range(50)) +
           "calm\t1\n")
    t = tmux_top("--interval", "0.3")
    screen = t.wait_for(lambda s: "sort: depth" in s and "busy" in s)
    assert t.alternate_on() == "1"
    assert "[q] quit" in screen
    rows = [l.split() for l in screen.splitlines() if l.startswith(("busy", "calm"))]
    assert [r[0] for r in rows] == ["busy", "calm"]
    # Work done while top runs shows up as a rate and a trend on the next frames.
    for _ in range(5):
        cli.ok("claim")
    # The ring serves busy, calm, then busy three times: busy has served 4.
    t.wait_for(lambda s: any(l.startswith("busy") and l.split()[4] == "4"
                             for l in s.splitlines()))
    t.keys("4")
    screen = t.wait_for(lambda s: "sort: name" in s)
    rows = [l.split()[0] for l in screen.splitlines() if l.startswith(("busy", "calm"))]
    assert rows == ["busy", "calm"]
    t.keys("s")  # name -> depth (the cycle wraps)
    t.wait_for(lambda s: "sort: depth" in s)
    t.keys("2")
    t.wait_for(lambda s: "sort: active" in s)
    t.keys("q")
    screen = t.wait_for(lambda s: "EXIT=" in s)
    assert "EXIT=0" in screen
    assert t.alternate_on() == "0"
    assert "sort: active" not in screen  # the normal screen is back, the frame is gone


def test_top_rate_and_trend(cli, tmux_top):
    cli.ok("enqueue", "hot", "--lines", input="".join(f"{i}\n" for i in range(300)))
    cli.ok("enqueue", "cold", "still")
    t = tmux_top("--interval", "0.3")
    t.wait_for(lambda s: "hot" in s)
    stop = threading.Event()

    def worker():  # a steady trickle of claims on the hot lane, bounded
        for _ in range(250):
            if stop.is_set():
                return
            cli.ok("claim")
            time.sleep(0.02)

    th = threading.Thread(target=worker)
    th.start()
    try:
        def busy(screen):
            row = next((l for l in screen.splitlines() if l.startswith("hot")), "")
            cells = row.split()
            return (len(cells) >= 7 and cells[5] != "-" and float(cells[5].replace(",", "")) > 0
                    and any(ch in cells[6] for ch in "▂▃▄▅▆▇█"))
        screen = t.wait_for(busy)
    finally:
        stop.set()
        th.join()
    cold = next(l for l in screen.splitlines() if l.startswith("cold")).split()
    assert cold[4] == "1"  # the ring served it once, then it was empty
    rate_line = screen.splitlines()[2]
    assert rate_line.startswith("served ") and "/s" in rate_line
    t.keys("q")
    t.wait_for(lambda s: "EXIT=0" in s)


def test_top_ctrl_c_restores_terminal(cli, tmux_top):
    cli.ok("enqueue", "alice", "x")
    t = tmux_top()
    t.wait_for(lambda s: "alice" in s)
    assert t.alternate_on() == "1"
    t.keys("C-c")
    screen = t.wait_for(lambda s: "EXIT=" in s)
    assert "EXIT=130" in screen  # died of SIGINT, as a shell expects
    assert t.alternate_on() == "0"


def test_top_sigterm_restores_terminal(cli, tmux_top):
    cli.ok("enqueue", "alice", "x")
    t = tmux_top()
    t.wait_for(lambda s: "alice" in s)
    shell = t.tmux("display-message", "-p", "-t", t.session, "#{pane_pid}").stdout.strip()
    kids = subprocess.run(["pgrep", "-P", shell], capture_output=True, text=True).stdout.split()
    assert len(kids) == 1, kids
    os.kill(int(kids[0]), 15)
    screen = t.wait_for(lambda s: "EXIT=" in s)
    assert "EXIT=143" in screen
    assert t.alternate_on() == "0"
    # Raw mode is undone too: the shell's terminal echoes typed text again.
    t.keys("echoed-back")
    t.wait_for(lambda s: "echoed-back" in s)
