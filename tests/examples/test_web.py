"""The example web services (examples/web): each started as a real HTTP
server on a free loopback port, against a real valkey-server, and asked
over HTTP: a request enqueues a task and gets its result back; a wait that
runs out gives 202 and the id, which a later GET resolves; a job that
cannot succeed gives 422; bad requests 400; an unknown id 404."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from emq_valkey import Server  # noqa: E402


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with Server(prefix="emq-web-") as s:
        yield s.url


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _http(method: str, url: str, body: Optional[Dict[str, Any]] = None) -> Tuple[int, Dict[str, Any]]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


class _Procs:
    def __init__(self) -> None:
        self.procs: List[subprocess.Popen] = []

    def start(self, argv: List[str], env: Dict[str, str], port: Optional[int] = None) -> subprocess.Popen:
        p = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.procs.append(p)
        if port is not None:
            deadline = time.monotonic() + 30
            while True:
                assert p.poll() is None, f"{argv} exited {p.returncode}: {p.stdout.read()}"
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                    break
                except OSError:
                    assert time.monotonic() < deadline, f"{argv} never listened on {port}"
                    time.sleep(0.1)
        return p

    def stop(self, p: subprocess.Popen, sig: int = signal.SIGINT) -> None:
        """SIGINT, as Ctrl-C (or SIGTERM, as a process manager): the process
        drains and exits 0."""
        p.send_signal(sig)
        out, _ = p.communicate(timeout=30)
        assert p.returncode == 0, f"exited {p.returncode}: {out}"

    def close(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()


@pytest.fixture()
def procs() -> Iterator[_Procs]:
    ps = _Procs()
    try:
        yield ps
    finally:
        ps.close()


def _exercise(base: str, start_worker) -> None:
    """The same conversation with either service; start_worker() starts
    the tasks' side once the first request has found none."""
    status, got = _http("POST", f"{base}/reports?wait=0", {"tenant": "acme", "rows": [1, 2]})
    assert status == 202 and got["state"] == "pending", got  # no worker yet: not done
    pending = got["job"]
    start_worker()
    status, got = _http("POST", f"{base}/reports", {"tenant": "acme", "rows": [3, 4]})
    assert (status, got["tenant"], got["total"]) == (200, "acme", 7), got
    deadline = time.monotonic() + 15
    while True:  # the first job, now that a worker runs
        status, got = _http("GET", f"{base}/reports/{pending}")
        if status == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert (status, got["job"], got["total"]) == (200, pending, 3), got
    status, got = _http("POST", f"{base}/reports", {"tenant": "globex", "rows": []})
    assert status == 422 and "no rows" in got["error"], got
    status, got = _http("POST", f"{base}/reports", {"rows": [1]})
    assert status == 400, got
    status, got = _http("GET", f"{base}/reports/999999")
    assert status == 404, got


def test_python_starlette_service(url: str, procs: _Procs) -> None:
    app = ROOT / "examples/web/python/app.py"
    env = dict(os.environ, ECHOMQ_URL=url)
    port = _free_port()
    web = procs.start([sys.executable, str(app), "web", "--port", str(port)], env, port)
    workers: List[subprocess.Popen] = []
    _exercise(f"http://127.0.0.1:{port}",
              lambda: workers.append(procs.start([sys.executable, str(app), "worker"], env)))
    procs.stop(workers[0], signal.SIGTERM)
    procs.stop(web)


def test_python_worker_stops_on_sigint_even_if_started_with_it_ignored(url: str, procs: _Procs) -> None:
    # A process started in the background by a non-interactive shell
    # inherits SIGINT ignored; the worker sets its own handlers.
    app = ROOT / "examples/web/python/app.py"
    env = dict(os.environ, ECHOMQ_URL=url)
    p = subprocess.Popen([sys.executable, str(app), "worker"], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    procs.procs.append(p)
    time.sleep(1.0)  # up and waiting for work
    assert p.poll() is None, p.stdout.read() if p.stdout else ""
    procs.stop(p)


def test_go_net_http_service(url: str, procs: _Procs, tmp_path: Path) -> None:
    go = shutil.which("go") or "/usr/local/go/bin/go"
    prefix = Path(os.environ.get("ECHOMQ_PREFIX", ROOT / "build" / "prefix")).resolve()
    # Go's cache does not notice a changed C library: a stamp of it in the
    # cgo flags, as scripts/test.sh gives go test.
    files = sorted((prefix / "include/echomq").glob("*.h")) + [prefix / "lib/libechomq.a"]
    stamp = hashlib.sha256(b"".join(f.read_bytes() for f in files)).hexdigest()[:16]
    env = dict(os.environ, CGO_ENABLED="1", PKG_CONFIG_PATH=str(prefix / "lib/pkgconfig"),
               CGO_CPPFLAGS=f"-DECHOMQ_LIB_STAMP={stamp}")
    binary = tmp_path / "webreports"
    b = subprocess.run([go, "build", "-o", str(binary), "."], cwd=ROOT / "examples/web/go", env=env,
                       capture_output=True, text=True, timeout=600)
    assert b.returncode == 0, b.stderr
    env["ECHOMQ_URL"] = url
    web_port, worker_port = _free_port(), _free_port()
    web = procs.start([str(binary), "-addr", f"127.0.0.1:{web_port}", "-worker=false"], env, web_port)
    both: List[subprocess.Popen] = []
    _exercise(f"http://127.0.0.1:{web_port}",
              lambda: both.append(procs.start([str(binary), "-addr", f"127.0.0.1:{worker_port}"], env, worker_port)))
    procs.stop(both[0])
    procs.stop(web)
