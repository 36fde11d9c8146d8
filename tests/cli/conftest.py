"""Fixtures for the echomq CLI tests: one real valkey-server per run, a
flushed keyspace and a fresh queue name per test, and the binary runner."""

import itertools

import pytest

from emq_valkey import Resp, Server

from .cli_helpers import Cli


@pytest.fixture(scope="session")
def server():
    """One throwaway valkey-server for the whole run; always stopped."""
    with Server(prefix="emq-cli-") as s:
        yield {"url": s.url, "sock": s.sock, "dir": s.dir}


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
