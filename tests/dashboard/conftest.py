"""Fixtures of the dashboard tests: a throwaway valkey-server
(tests/emq_valkey.py), the dashboard as a real process on a free loopback
port (stopped by its PID), and headless Chromium driven by selenium."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest

import echomq

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from emq_valkey import Server  # noqa: E402

TOKEN = "test-token-0123456789"
CHROMIUM = os.environ.get("ECHOMQ_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("ECHOMQ_CHROMEDRIVER", "/usr/bin/chromedriver")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Dashboard:
    """``python -m echomq dashboard`` in a process of its own."""

    def __init__(self, url: str, *args: str, token: Optional[str] = TOKEN, port: Optional[int] = None) -> None:
        self.url = url
        self.args = list(args)
        self.token = token
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc: Optional[subprocess.Popen] = None
        self._log = tempfile.NamedTemporaryFile(prefix="emq-dashboard-", suffix=".log", delete=False)

    def start(self) -> "Dashboard":
        env = dict(os.environ)
        env.pop("ECHOMQ_DASHBOARD_TOKEN", None)
        if self.token is not None:
            env["ECHOMQ_DASHBOARD_TOKEN"] = self.token
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "echomq", "dashboard", self.url, *self.args, "--bind", f"127.0.0.1:{self.port}"],
            stdin=subprocess.DEVNULL, stdout=self._log, stderr=self._log, env=env)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"dashboard exited with {self.proc.returncode}: {self.log()}")
            try:
                urllib.request.urlopen(self.base + "/api/config", timeout=1).read()
                return self
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.1)
        raise RuntimeError(f"dashboard did not answer on {self.base}: {self.log()}")

    def kill(self) -> None:
        """SIGKILL by PID: the server is lost, as in a crash."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()

    def log(self) -> str:
        return Path(self._log.name).read_text(errors="replace")

    def request(self, method: str, path: str, body: Any = None, headers: Optional[Dict[str, str]] = None,
                raw: Optional[bytes] = None) -> Tuple[int, Dict[str, str], Any]:
        """(status, headers, JSON or text) of one HTTP request."""
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers or {})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                status, hdrs, content = r.status, dict(r.headers), r.read()
        except urllib.error.HTTPError as e:
            status, hdrs, content = e.code, dict(e.headers), e.read()
        text = content.decode("utf-8", "replace")
        try:
            return status, hdrs, json.loads(text)
        except ValueError:
            return status, hdrs, text

    def get(self, path: str) -> Tuple[int, Any]:
        status, _, body = self.request("GET", path)
        return status, body

    def post(self, path: str, body: Any, token: Optional[str] = None) -> Tuple[int, Any]:
        headers = {"content-type": "application/json"}
        if token is not None:
            headers["X-EchoMQ-Token"] = token
        status, _, out = self.request("POST", path, body, headers)
        return status, out


@pytest.fixture(scope="session")
def valkey() -> Iterator[Server]:
    with Server(prefix="emq-dash-") as s:
        yield s


@pytest.fixture()
def client(valkey: Server) -> Iterator[echomq.Client]:
    with echomq.connect(valkey.url) as c:
        yield c


_made: List[Dashboard] = []


@pytest.fixture()
def dashboard(valkey: Server) -> Iterator[Any]:
    """dashboard(*args, token=TOKEN) -> a started Dashboard; all stopped at the end."""
    made: List[Dashboard] = []

    def start(*args: str, token: Optional[str] = TOKEN) -> Dashboard:
        d = Dashboard(valkey.url, *args, token=token).start()
        made.append(d)
        return d
    yield start
    for d in made:
        d.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium for the session, with a fresh profile."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="emq-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--no-first-run", f"--user-data-dir={profile}", "--window-size=1280,1000"):
        opts.add_argument(flag)
    # Console messages (a CSP refusal is one) are read by the tests.
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
        import shutil
        shutil.rmtree(profile, ignore_errors=True)


_queue_ids = iter(range(1, 10**6))


@pytest.fixture()
def qname() -> str:
    return f"dash{next(_queue_ids)}-{os.getpid()}"
