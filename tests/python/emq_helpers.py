"""Test helpers: a polling wait and the environment for child Python
processes. (The RESP client and the server are tests/emq_valkey.py, shared
with the CLI tests.)"""

from __future__ import annotations

import os
import time
from pathlib import Path

from emq_valkey import Resp, RespError  # noqa: F401  (where older tests look for them)


def wait_for(predicate, timeout: float = 10.0, interval: float = 0.02) -> bool:
    """Polls predicate until it is true or timeout passes; returns its last value."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() >= deadline:
            return bool(value)
        time.sleep(interval)


def python_env() -> dict:
    """Environment for a child Python that imports the installed echomq, this
    folder's helpers and tests/emq_valkey.py."""
    env = dict(os.environ)
    here = Path(__file__).resolve().parent
    paths = [str(here), str(here.parent)]
    env["PYTHONPATH"] = os.pathsep.join(paths + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def shout(job) -> None:
    """A handler for the command-line test: fails jobs whose payload is
    b"fail", appends the others' payloads upper-cased to $EMQ_TEST_OUT."""
    if job.payload == b"fail":
        raise ValueError("told to fail")
    with open(os.environ["EMQ_TEST_OUT"], "ab") as f:
        f.write(job.payload.upper() + b"\n")
