"""The one RESP client and the one throwaway server of the Python and CLI
test suites.

Resp reads (and, where a test means to, disturbs) the keyspace directly, so a
test checks what the library wrote without trusting the library. Server
starts valkey-server with tests/valkey-server.sh on a free loopback port and
always stops it by its PID."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import List, Optional, Union
from urllib.parse import urlparse

SERVER_SCRIPT = Path(__file__).resolve().parent / "valkey-server.sh"

Reply = Union[None, int, bytes, str, List["Reply"]]


class RespError(Exception):
    """An error reply from the server."""


class Resp:
    """One blocking RESP2 connection; commands are sent as binary-safe arrays.
    `where` is a valkey:// URL, a unix:// URL or a unix socket path."""

    def __init__(self, where: str, timeout: float = 10.0) -> None:
        if where.startswith("valkey://") or where.startswith("redis://"):
            u = urlparse(where)
            self._sock = socket.create_connection((u.hostname or "127.0.0.1", u.port or 6379), timeout=timeout)
        else:
            path = where[len("unix://"):] if where.startswith("unix://") else where
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self._sock.settimeout(timeout)
            self._sock.connect(path)
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

    def _fill(self) -> None:
        chunk = self._sock.recv(65536)
        if not chunk:
            raise ConnectionError("server closed the connection")
        self._buf += chunk

    def _line(self) -> bytes:
        while b"\r\n" not in self._buf:
            self._fill()
        line, self._buf = self._buf.split(b"\r\n", 1)
        return line

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
            data, self._buf = self._buf[:n], self._buf[n + 2:]
            return data
        if kind == b"*":
            n = int(rest)
            return None if n < 0 else [self._read() for _ in range(n)]
        raise RespError(f"unexpected reply line {line!r}")

    def keys(self, pattern: str = "*") -> List[bytes]:
        """Every key matching pattern (SCAN), sorted."""
        found, cursor = set(), b"0"
        while True:
            cursor, batch = self("SCAN", cursor, "MATCH", pattern, "COUNT", 1000)
            found.update(k for k in batch if isinstance(k, bytes))
            if cursor == b"0":
                return sorted(found)

    def snapshot(self, pattern: str = "*") -> dict:
        """Every key matching pattern with its type, expiry and value, to
        prove a refused call changed nothing."""
        return {k: self.content(k) for k in self.keys(pattern)}

    def content(self, key: bytes) -> tuple:
        """A key's type, whether it expires, and its value in an order the
        encoding cannot change: a hash table is walked (and DUMPed) in
        bucket order, which a read may move by a rehash step, so hashes and
        sets are sorted."""
        kind = self("TYPE", key)
        ttl = self("PTTL", key) >= 0
        if kind == "string":
            value: Reply = self("GET", key)
        elif kind == "hash":
            flat = self("HGETALL", key)
            value = sorted(zip(flat[0::2], flat[1::2]))
        elif kind == "set":
            value = sorted(self("SMEMBERS", key))
        elif kind == "zset":
            value = self("ZRANGE", key, 0, -1, "WITHSCORES")
        elif kind == "list":
            value = self("LRANGE", key, 0, -1)
        else:
            value = self("DUMP", key)
        return (kind, ttl, value)


class Server:
    """A throwaway valkey-server (tests/valkey-server.sh): `with Server() as s`
    gives s.url, s.sock (its unix socket) and s.dir; stopped by its PID at
    the end, whatever happened."""

    def __init__(self, prefix: str = "emq-test-") -> None:
        self._top = tempfile.mkdtemp(prefix=prefix)
        self.dir = os.path.join(self._top, "srv")
        self.url = ""
        self.sock = os.path.join(self.dir, "valkey.sock")

    def __enter__(self) -> "Server":
        try:
            subprocess.run(["bash", str(SERVER_SCRIPT), "start", self.dir], check=True,
                           stdout=subprocess.DEVNULL, timeout=60)
            self.url = Path(self.dir, "url").read_text().strip()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        subprocess.run(["bash", str(SERVER_SCRIPT), "stop", self.dir], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
        shutil.rmtree(self._top, ignore_errors=True)

    def resp(self, timeout: Optional[float] = None) -> Resp:
        return Resp(self.sock, timeout or 10.0)


TLS_SCRIPT = Path(__file__).resolve().parent / "valkey-tls.sh"


class TlsServer:
    """A TLS-only valkey-server (tests/valkey-tls.sh): certificates made now
    by the openssl CLI in s.certs, s.url (valkeys://, with ?ca=), s.base (the
    URL without its query) and s.sock, its plain unix socket for Resp.
    auth: tls-auth-clients no|yes|optional. Stopped by its PID."""

    def __init__(self, auth: str = "no", prefix: str = "emq-tls-") -> None:
        self._top = tempfile.mkdtemp(prefix=prefix)
        self.dir = os.path.join(self._top, "server")
        self.certs = os.path.join(self._top, "certs")
        self.sock = os.path.join(self.dir, "valkey.sock")
        self.auth = auth

    def __enter__(self) -> "TlsServer":
        try:
            out = subprocess.run(["bash", str(TLS_SCRIPT), "start", self.dir, self.auth, self.certs],
                                 check=True, capture_output=True, text=True, timeout=60).stdout
        except BaseException:
            self.stop()
            raise
        self.url = out.strip().splitlines()[-1]
        self.base = self.url.split("?", 1)[0]
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        subprocess.run(["bash", str(TLS_SCRIPT), "stop", self.dir], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
        shutil.rmtree(self._top, ignore_errors=True)

    def cert(self, name: str) -> str:
        return os.path.join(self.certs, name)
