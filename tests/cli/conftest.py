"""Fixtures for the echomq CLI tests: one real valkey-server per run, a
flushed keyspace and a fresh queue name per test, and the binary runner."""

import itertools
import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from .cli_helpers import SERVER_SCRIPT, Cli, Resp


@pytest.fixture(scope="session")
def server():
    """One throwaway valkey-server for the whole run; always stopped."""
    d = tempfile.mkdtemp(prefix="emq-cli-")
    sdir = os.path.join(d, "srv")
    subprocess.run(["bash", str(SERVER_SCRIPT), "start", sdir], check=True, capture_output=True)
    try:
        url = Path(sdir, "url").read_text().strip()
        yield {"url": url, "sock": os.path.join(sdir, "valkey.sock"), "dir": sdir}
    finally:
        subprocess.run(["bash", str(SERVER_SCRIPT), "stop", sdir], capture_output=True)
        try:
            os.rmdir(d)
        except OSError:
            pass


@pytest.fixture
def db(server):
    """A RESP connection to the server, flushed before each test."""
    r = Resp(server["sock"])
    r("FLUSHALL")
    yield r
    r.close()


_queue_ids = itertools.count(1)


@pytest.fixture
def queue(db):
    """A queue name unique to the test (the keyspace is also flushed)."""
    return f"cliq{next(_queue_ids)}"


@pytest.fixture
def cli(server, queue):
    return Cli(server["url"], queue)
