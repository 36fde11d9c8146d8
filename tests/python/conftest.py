"""Fixtures: one real valkey-server for the session (tests/emq_valkey.py),
a fresh queue name per test, and a check that every queue a test used is
healthy at its end (Queue.verify() reports no violation)."""

from __future__ import annotations

import itertools
import re
import sys
from pathlib import Path
from typing import Iterator, List

import pytest

import echomq

# tests/emq_valkey.py: the RESP client and server shared with the CLI tests.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from emq_valkey import Resp, Server  # noqa: E402

_counter = itertools.count(1)


@pytest.fixture(scope="session")
def valkey() -> Iterator[Server]:
    """A throwaway valkey-server, always stopped at the end of the session."""
    with Server(prefix="emq-pytest-") as s:
        yield s


@pytest.fixture(scope="session")
def url(valkey: Server) -> str:
    """The server's valkey:// URL."""
    return valkey.url


@pytest.fixture()
def resp(url: str) -> Iterator[Resp]:
    """A raw connection to read the keyspace independently of the library."""
    with Resp(url) as r:
        yield r


@pytest.fixture()
def client(url: str) -> Iterator[echomq.Client]:
    """A connected client, closed after the test."""
    with echomq.connect(url) as c:
        yield c


class _Verified:
    """Collects the queues a test made; checks each one at teardown."""

    def __init__(self, client: echomq.Client, prefix: str) -> None:
        self.client = client
        self.prefix = prefix
        self.names: List[str] = []

    def __call__(self, suffix: str = "", **kw) -> echomq.Queue:
        name = f"{self.prefix}{'-' + suffix if suffix else ''}"
        self.names.append(name)
        return self.client.queue(name, **kw)


@pytest.fixture()
def make_queue(request: pytest.FixtureRequest, url: str) -> Iterator[_Verified]:
    """make_queue(suffix="") -> a Queue with a name unique to this test.
    At teardown every such queue must pass verify()."""
    base = re.sub(r"[^A-Za-z0-9_.-]", "_", request.node.name)[:80]
    with echomq.connect(url) as c:
        made = _Verified(c, f"t{next(_counter)}-{base}")
        yield made
        failed = request.node.stash.get(_failed_key, False)
        for name in made.names:
            violations = c.queue(name).verify()
            if not failed:
                assert violations == [], f"queue {name}: {violations}"


@pytest.fixture()
def queue(make_queue: _Verified) -> echomq.Queue:
    """A fresh queue on its own client, verified at teardown."""
    return make_queue()


_failed_key = pytest.StashKey[bool]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):  # type: ignore[no-untyped-def]
    outcome = yield
    rep = outcome.get_result()
    if rep.when == "call" and rep.failed:
        item.stash[_failed_key] = True
