"""Test helpers: a minimal RESP2 client that reads the keyspace directly (so
the tests check what the library wrote without trusting the library), a
polling wait, and the environment for child Python processes."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path
from typing import List, Union
from urllib.parse import urlparse

Reply = Union[None, int, bytes, str, List["Reply"]]


class RespError(Exception):
    """An error reply from the server."""


class Resp:
    """One blocking connection; commands are sent as binary-safe arrays."""

    def __init__(self, url: str, timeout: float = 10.0) -> None:
        u = urlparse(url)
        self._sock = socket.create_connection((u.hostname or "127.0.0.1", u.port or 6379), timeout=timeout)
        self._buf = b""

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> "Resp":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __call__(self, *args: Union[str, bytes, int]) -> Reply:
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            b = a if isinstance(a, bytes) else str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(b), b))
        self._sock.sendall(b"".join(out))
        return self._read()

    def _line(self) -> bytes:
        while b"\r\n" not in self._buf:
            self._fill()
        line, self._buf = self._buf.split(b"\r\n", 1)
        return line

    def _fill(self) -> None:
        chunk = self._sock.recv(65536)
        if not chunk:
            raise ConnectionError("server closed the connection")
        self._buf += chunk

    def _read(self) -> Reply:
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            raise RespError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            n = int(rest)
            if n < 0:
                return None
            while len(self._buf) < n + 2:
                self._fill()
            data, self._buf = self._buf[:n], self._buf[n + 2 :]
            return data
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self._read() for _ in range(n)]
        raise RespError(f"unexpected reply line {line!r}")

    def snapshot(self, pattern: str = "*") -> dict:
        """Every key matching pattern with its DUMP (type + value), for
        comparing the keyspace before and after a call."""
        keys = self("KEYS", pattern)
        assert isinstance(keys, list)
        snap = {}
        for k in keys:
            assert isinstance(k, bytes)
            snap[k] = self("DUMP", k)
        return snap

    def keys(self, pattern: str = "*") -> List[bytes]:
        """KEYS pattern, sorted."""
        got = self("KEYS", pattern)
        assert isinstance(got, list)
        return sorted(k for k in got if isinstance(k, bytes))


def wait_for(predicate, timeout: float = 10.0, interval: float = 0.02) -> bool:
    """Polls predicate until it is true or timeout passes; returns its last value."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() >= deadline:
            return bool(value)
        time.sleep(interval)


def python_env() -> dict:
    """Environment for a child Python that imports the installed echomq and
    this folder's helpers."""
    env = dict(os.environ)
    here = str(Path(__file__).resolve().parent)
    env["PYTHONPATH"] = here + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def shout(job) -> None:
    """A handler for the command-line test: fails jobs whose payload is
    b"fail", appends the others' payloads upper-cased to $EMQ_TEST_OUT."""
    if job.payload == b"fail":
        raise ValueError("told to fail")
    with open(os.environ["EMQ_TEST_OUT"], "ab") as f:
        f.write(job.payload.upper() + b"\n")
