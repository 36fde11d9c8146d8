"""Bad input is refused with the right exception before anything is written,
and every status code maps to its own class."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest

import echomq
from echomq import _echomq


def _key_pattern(q):
    return f"emq:{{{q.name}}}:*"


@pytest.fixture()
def seeded(queue):
    """A queue with some state to protect: two lanes, one leased job."""
    queue.enqueue_many([("a", "1"), ("a", "2"), ("b", "3")])
    queue.weight("a", 2)
    held = queue.claim(lease=60)
    return queue, held


BAD_CALLS = [
    ("empty group", lambda q, j: q.enqueue("", b"x"), echomq.InvalidArgument),
    ("control char in group", lambda q, j: q.enqueue("a\nb", b"x"), echomq.InvalidArgument),
    ("NUL in group", lambda q, j: q.enqueue("a\0b", b"x"), echomq.InvalidArgument),
    ("group too long", lambda q, j: q.enqueue("g" * 257, b"x"), echomq.InvalidArgument),
    ("lone surrogate group", lambda q, j: q.enqueue("a\udcff", b"x"), echomq.InvalidArgument),
    ("negative delay", lambda q, j: q.enqueue("a", b"x", delay=-1), echomq.InvalidArgument),
    ("delay too long", lambda q, j: q.enqueue("a", b"x", delay=400 * 86400), echomq.InvalidArgument),
    ("zero max_attempts", lambda q, j: q.enqueue("a", b"x", max_attempts=0), echomq.InvalidArgument),
    ("payload too large", lambda q, j: q.enqueue("a", b"x" * (2 * 1024 * 1024)), echomq.TooLargeError),
    ("bad batch entry", lambda q, j: q.enqueue_many([("a", "ok"), ("", "bad"), ("b", "ok")]), echomq.InvalidArgument),
    ("large batch entry", lambda q, j: q.enqueue_many([("a", "ok"), ("b", b"x" * (2 << 20))]), echomq.TooLargeError),
    ("zero lease", lambda q, j: q.claim(lease=0), echomq.InvalidArgument),
    ("lease too long", lambda q, j: q.claim(lease=8 * 86400), echomq.InvalidArgument),
    ("NaN lease", lambda q, j: q.claim(lease=float("nan")), echomq.InvalidArgument),
    ("negative wait", lambda q, j: q.claim(wait=-1), echomq.InvalidArgument),
    ("zero wclaim max", lambda q, j: q.wclaim(max=0), echomq.InvalidArgument),
    ("zero weight", lambda q, j: q.weight("a", 0), echomq.InvalidArgument),
    ("huge weight", lambda q, j: q.weight("a", 10**7), echomq.InvalidArgument),
    ("zero limit", lambda q, j: q.limit("a", 0), echomq.InvalidArgument),
    ("bad group pause", lambda q, j: q.pause(""), echomq.InvalidArgument),
    ("zero default weight", lambda q, j: q.defaults(weight=0), echomq.InvalidArgument),
    ("bad defaults write nothing", lambda q, j: q.defaults(weight=3, max_attempts=0), echomq.InvalidArgument),
    ("zero extend", lambda q, j: j.extend(0), echomq.InvalidArgument),
    ("negative retry", lambda q, j: j.fail("x", retry_in=-5), echomq.InvalidArgument),
    ("dead count zero", lambda q, j: q.dead(count=0), echomq.InvalidArgument),
    ("lanes page zero", lambda q, j: list(q.lanes(page_size=0)), echomq.InvalidArgument),
    ("payload int", lambda q, j: q.enqueue("a", 42), TypeError),
    ("group bytes", lambda q, j: q.enqueue(b"a", b"x"), TypeError),
    ("lease str", lambda q, j: q.claim(lease="10"), TypeError),
    ("ack unknown job", lambda q, j: q.client._raw.ack(q.name, 10**9, 1), echomq.NotFoundError),
]


@pytest.mark.parametrize("what,call,exc", BAD_CALLS, ids=[b[0] for b in BAD_CALLS])
def test_bad_input_raises_and_writes_nothing(seeded, resp, what, call, exc):
    q, held = seeded
    before = resp.snapshot(_key_pattern(q))
    assert before, "the seeded queue has keys"
    with pytest.raises(exc):
        call(q, held)
    assert resp.snapshot(_key_pattern(q)) == before, f"{what}: the keyspace changed"
    held.ack()
    assert q.verify() == []


@pytest.mark.parametrize("name", ["", "a:b", "{q}", "q q", "é", "x" * 129, "a\0b"])
def test_bad_queue_names_are_refused_without_io(client, resp, name):
    before = resp.keys()
    with pytest.raises(echomq.InvalidArgument):
        client.queue(name)
    assert resp.keys() == before


def test_invalid_argument_is_a_value_error(queue):
    with pytest.raises(ValueError):
        queue.enqueue("", b"x")
    with pytest.raises(echomq.EchoMQError) as err:
        queue.limit("a", 0)
    assert err.value.code == -1 and err.value.message


def test_small_client_payload_limit(url, resp):
    with echomq.connect(url, max_payload=1024) as c:
        q = c.queue("tiny-payloads")
        with pytest.raises(echomq.TooLargeError) as err:
            q.enqueue("a", b"x" * 1025)
        assert err.value.code == -2
        assert resp.keys("emq:{tiny-payloads}:*") == []
        q.enqueue("a", b"x" * 1024)
        q.claim().ack()
        assert q.verify() == []


def test_connection_errors(url):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    with pytest.raises(echomq.ConnectionError) as err:
        echomq.connect(f"valkey://127.0.0.1:{port}", connect_timeout=1)
    assert isinstance(err.value, ConnectionError) and err.value.code == -10
    for bad in ("http://localhost", "valkey://127.0.0.1:99999", "unix://"):
        with pytest.raises(echomq.InvalidArgument):
            echomq.connect(bad)


def test_auth_failure_is_a_permission_error(url):
    host_port = url.split("://", 1)[1]
    with pytest.raises(echomq.PermissionError) as err:
        echomq.connect(f"valkey://nobody:wrong@{host_port}")
    assert isinstance(err.value, PermissionError) and err.value.code == -21


HEADER = Path(__file__).resolve().parents[2] / "capi" / "include" / "echomq" / "common.h"


def header_statuses():
    """Every status of the C header's echomq_status enum: name -> number."""
    text = HEADER.read_text()
    enum = text[text.index("typedef enum echomq_status"):text.index("} echomq_status;")]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"\bECHOMQ_([A-Z_]+)\s*=\s*(-?\d+)", enum)}


def test_every_status_code_of_the_header_is_known():
    # Read from the header, as the Go test reads them from C: a status added
    # there and not here fails.
    codes = header_statuses()
    assert codes["OK"] == 0 and codes["WILL_DIE"] == 6 and codes["EINTERNAL"] == -31 and len(codes) >= 28
    for name, code in codes.items():
        assert getattr(_echomq, name, None) == code, f"_echomq.{name}"
        if code < 0:
            cls = echomq.error_class(code)
            assert cls is not echomq.EchoMQError and cls.code == code, f"no class for ECHOMQ_{name}"
            assert issubclass(cls, echomq.EchoMQError)
            assert echomq.strerror(code) and echomq.strerror(code) != echomq.strerror(0)
    classes = [echomq.error_class(c) for c in codes.values() if c < 0]
    assert len(set(classes)) == len(classes), "one class per error status"
    assert echomq.error_class(codes["PENDING"]) is echomq.JobPendingError
    assert echomq.UnconfirmedWarning.code == codes["UNCONFIRMED"]
    assert issubclass(echomq.TimeoutError, TimeoutError)
    assert issubclass(echomq.TooLargeError, ValueError)
    assert echomq.error_class(-999) is echomq.EchoMQError
    assert _echomq.FAIL_DEAD == echomq.FailOutcome.DEAD


def test_no_reply_in_time_is_a_timeout_with_unknown_outcome(url, resp, make_queue):
    with echomq.connect(url, timeout=0.2) as c:
        q = c.queue(make_queue("timeout").name)
        c.ping()
        assert resp("CLIENT", "PAUSE", "800", "WRITE") == "OK"
        with pytest.raises(echomq.TimeoutError) as err:
            q.enqueue("a", b"x")
        assert err.value.code == -11 and isinstance(err.value, TimeoutError)
        resp("CLIENT", "UNPAUSE")
        # The client dropped the connection; its next call reconnects.
        jid = q.enqueue("a", b"y")
        seen = []
        while (job := q.claim()) is not None:
            seen.append(job.id)
            job.ack()
        assert jid in seen
        assert q.verify() == []


def test_retryable_errors_share_a_base():
    retryable = {echomq.BusyError, echomq.LoadingError, echomq.TryAgainError,
                 echomq.ServerOutOfMemoryError}
    for cls in retryable:
        assert issubclass(cls, echomq.RetryableError)
        assert issubclass(cls, echomq.ServerError)  # as before these had codes
        assert "retryable" in echomq.strerror(cls.code)
    for code in (-1, -2, -3, -4, -8, -10, -11, -12, -13, -20, -21, -22, -30, -31):
        assert not issubclass(echomq.error_class(code), echomq.RetryableError)


def test_a_full_server_raises_server_out_of_memory(tmp_path):
    """A server of the test's own with a tiny maxmemory: enqueue is refused
    with ServerOutOfMemoryError, which is a RetryableError, and claims drain."""
    import socket
    import subprocess
    import time

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    pidfile = tmp_path / "valkey.pid"
    subprocess.run(
        ["valkey-server", "--bind", "127.0.0.1", "--port", str(port), "--dir", str(tmp_path),
         "--save", "", "--appendonly", "no", "--daemonize", "yes", "--pidfile", str(pidfile),
         "--logfile", str(tmp_path / "valkey.log"), "--maxmemory", "3mb",
         "--maxmemory-policy", "noeviction"],
        check=True)
    try:
        for _ in range(100):
            if pidfile.exists() and pidfile.read_text().strip():
                break
            time.sleep(0.05)
        pid = int(pidfile.read_text())
        for _ in range(100):
            try:
                client = echomq.connect(f"valkey://127.0.0.1:{port}")
                break
            except echomq.ConnectionError:
                time.sleep(0.05)
        with client:
            q = client.queue("py-oom")
            n = 0
            with pytest.raises(echomq.RetryableError) as err:
                for _ in range(1000):
                    q.enqueue_many([("g%d" % (i % 5), b"p" * 1024) for i in range(50)])
                    n += 50
            assert isinstance(err.value, echomq.ServerOutOfMemoryError)
            assert err.value.code == -26 and n > 0
            drained = 0
            while True:
                job = q.claim(lease=30)
                if job is None:
                    break
                job.ack()
                drained += 1
            assert drained == n
            assert q.verify() == []
    finally:
        import os
        import signal
        os.kill(pid, signal.SIGKILL)
