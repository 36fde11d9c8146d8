"""What every worker of the Python peers bench does per job, whatever the
library: append one fixed-size record (producer, enqueue time, start time)
to the file named by $PEERS_LOG, then sleep the job's handler time.

Appends of one small record with O_APPEND are atomic, so worker processes,
threads and forked children may share the file; the bench reads it to see
progress, the order of starts and every wait (enqueue -> handler start)."""

import os
import struct
import time

RECORD = struct.Struct("<qdd")  # producer, enqueue time, start time (epoch seconds)

_fd = {"pid": -1, "fd": -1}


def _log_fd() -> int:
    # Opened once per process: forked children (rq) open their own.
    if _fd["pid"] != os.getpid():
        _fd["fd"] = os.open(os.environ["PEERS_LOG"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        _fd["pid"] = os.getpid()
    return _fd["fd"]


def started(p: int, enq: float) -> float:
    """Records a job's start; returns the handler time to spend (seconds)."""
    os.write(_log_fd(), RECORD.pack(p, enq, time.time()))
    return 0.0


def payload(p: int, enq: float, sleep_ms: float, pad: str = "") -> str:
    """One job's payload for libraries that carry bytes (EchoMQ)."""
    return f"{p} {enq:.6f} {sleep_ms:g} {pad}"


def parse(text: str):
    p, enq, sleep_ms, *_ = text.split(" ", 3)
    return int(p), float(enq), float(sleep_ms)


def run_sync(p: int, enq: float, sleep_ms: float) -> None:
    """The handler body of a thread or process worker."""
    started(p, enq)
    if sleep_ms > 0:
        time.sleep(sleep_ms / 1000.0)


async def run_async(p: int, enq: float, sleep_ms: float) -> None:
    """The handler body of an asyncio worker."""
    import asyncio

    started(p, enq)
    if sleep_ms > 0:
        await asyncio.sleep(sleep_ms / 1000.0)
