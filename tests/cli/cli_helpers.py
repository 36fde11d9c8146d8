"""Helpers shared by the echomq CLI tests: exit codes, a runner for the real
binary, and a private tmux for the full-screen view. (The RESP client and the
server are tests/emq_valkey.py, shared with the Python tests.)"""

import json
import os
import shlex
import subprocess
import time
import uuid
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TMUX = "/usr/bin/tmux"

# The documented exit codes (docs/cli.md).
OK, FAILURE, USAGE, CONN, NOT_FOUND, STALE, VIOLATIONS, EMPTY = 0, 1, 2, 3, 4, 5, 6, 7


def cli_path() -> Path:
    return Path(os.environ.get("ECHOMQ_CLI", REPO / "build" / "cli" / "echomq"))


class Cli:
    """Runs the real binary against the test server."""

    def __init__(self, url: str, queue: str):
        self.url = url
        self.queue = queue
        self.path = cli_path()
        if not self.path.is_file():
            pytest.fail(f"echomq binary not found at {self.path} (build it, or set ECHOMQ_CLI)")

    def run(self, *args, input=None, env=None, queue=True, url=True, timeout=30):
        e = dict(os.environ)
        e.pop("ECHOMQ_QUEUE", None)
        e.pop("ECHOMQ_URL", None)
        if url:
            e["ECHOMQ_URL"] = self.url
        if env:
            e.update(env)
        argv = [str(self.path)]
        if queue:
            argv += ["-q", self.queue]
        argv += [str(a) for a in args]
        data = input.encode() if isinstance(input, str) else input
        return subprocess.run(argv, input=data, capture_output=True, env=e, timeout=timeout)

    def ok(self, *args, **kw) -> str:
        p = self.run(*args, **kw)
        assert p.returncode == 0, (args, p.returncode, p.stderr.decode())
        return p.stdout.decode()

    def json(self, *args, **kw):
        return json.loads(self.ok(*args, "--json", **kw))


def one_line_error(p) -> str:
    """The process's stderr, asserted to be exactly one line."""
    err = p.stderr.decode()
    assert err.endswith("\n") and err.count("\n") == 1, repr(err)
    assert err.startswith("echomq: "), repr(err)
    return err.strip()


class Tmux:
    """A private tmux server (own socket) holding one detached session."""

    def __init__(self, command, env):
        self.sock = f"emq-cli-{uuid.uuid4().hex[:8]}"
        self.session = "top"
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        # After the program exits, print its status and the alternate-screen
        # state, then keep the pane alive so it can be read.
        # The trap keeps the shell alive through a Ctrl-C aimed at the program.
        script = f"trap : INT TERM; env {exports} {command}; echo EXIT=$?; sleep 60"
        self.tmux("new-session", "-d", "-s", self.session, "-x", "110", "-y", "30",
                  "sh", "-c", script)

    def tmux(self, *args):
        return subprocess.run([TMUX, "-L", self.sock, *args], capture_output=True, text=True,
                              timeout=10)

    def screen(self):
        return self.tmux("capture-pane", "-p", "-t", self.session).stdout

    def alternate_on(self):
        return self.tmux("display-message", "-p", "-t", self.session,
                         "#{alternate_on}").stdout.strip()

    def keys(self, *keys):
        self.tmux("send-keys", "-t", self.session, *keys)

    def wait_for(self, predicate, timeout=10.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            text = self.screen()
            if predicate(text):
                return text
            time.sleep(0.1)
        raise AssertionError("screen never matched:\n" + self.screen())

    def kill(self):
        self.tmux("kill-server")


def samples(text):
    """OpenMetrics text as {(sample name, sorted labels): value}."""
    from prometheus_client.openmetrics import parser  # scripts/setup-deps.sh installs it

    out = {}
    for fam in parser.text_string_to_metric_families(text):
        for s in fam.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out
