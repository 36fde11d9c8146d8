"""TLS from Python: a valkeys:// URL verified against a CA made at test time
(tests/valkey-tls.sh), the refusals as echomq.TLSError, and mutual TLS."""

from __future__ import annotations

from typing import Iterator

import pytest

import echomq
from emq_valkey import TlsServer


@pytest.fixture(scope="module")
def tls() -> Iterator[TlsServer]:
    with TlsServer(auth="optional", prefix="emq-pytest-tls-") as s:
        yield s


def _commands_run(tls: TlsServer) -> int:
    with tls_resp(tls) as r:
        info = r("INFO", "stats").decode()
    return int(next(l for l in info.splitlines() if l.startswith("total_commands_processed:")).split(":")[1])


def tls_resp(tls: TlsServer):
    from emq_valkey import Resp
    return Resp(tls.sock)


def test_a_queue_round_trip_over_tls(tls: TlsServer) -> None:
    with echomq.connect(tls.url) as c:
        q = c.queue("py-tls")
        jid = q.enqueue("tenant", b"secret payload")
        job = q.claim(lease=30)
        assert job is not None and job.id == jid and job.payload == b"secret payload"
        job.ack()
        assert q.verify() == []
    # A client certificate the server trusts (tls-auth-clients optional checks it).
    url = f"{tls.url}&cert={tls.cert('client.pem')}&key={tls.cert('client.key')}"
    with echomq.connect(url) as c:
        c.queue("py-tls").enqueue("tenant", b"mtls")
        assert c.queue("py-tls").claim(lease=30).ack() is None


def test_an_untrusted_server_raises_tls_error_and_runs_nothing(tls: TlsServer) -> None:
    before = _commands_run(tls)
    between = _commands_run(tls)
    with pytest.raises(echomq.TLSError) as err:
        echomq.connect(f"{tls.base}?ca={tls.cert('other-ca.pem')}")
    assert err.value.code == -13
    assert isinstance(err.value, echomq.ConnectionError)
    assert "not trusted" in str(err.value)
    assert _commands_run(tls) - between == between - before
    with pytest.raises(echomq.TLSError, match="mismatch"):
        echomq.connect(f"{tls.url}&sni=other.example")


def test_bad_tls_urls_are_invalid_arguments(tls: TlsServer) -> None:
    for bad in (f"{tls.base}?ca={tls.certs}/missing.pem", f"{tls.url}&bogus=1",
                tls.url.replace("valkeys://", "valkey://")):
        with pytest.raises(echomq.InvalidArgument):
            echomq.connect(bad)


def test_the_worker_runs_over_tls(tls: TlsServer) -> None:
    done = []
    with echomq.connect(tls.url) as c:
        q = c.queue("py-tls-worker")
        for i in range(20):
            q.enqueue(f"g{i % 3}", str(i).encode())
        stats = echomq.Worker(q, lambda job: done.append(job.payload), concurrency=2,
                              idle_timeout=0.5).run(handle_signals=False)
        assert q.verify() == []
    assert sorted(int(p) for p in done) == list(range(20))
    assert stats is not None
