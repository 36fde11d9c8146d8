"""History files of a chaos run (tests/chaos/README.md, "History"): one JSON
object a line, one file per process, merged by the checker."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List


def now_ms() -> float:
    """The client's wall clock in ms: one clock for every process of a run
    (the clock shim shifts only the servers')."""
    return time.time() * 1000.0


class History:
    """Appends lines {"ev": ..., "who": ..., "lang": ..., fields...}, each
    written and flushed at once (a kill -9 cuts at most the last line)."""

    def __init__(self, path: str, who: str, lang: str) -> None:
        self._f = open(path, "a", buffering=1)
        self._who, self._lang = who, lang
        self._lock = threading.Lock()

    def record(self, ev: str, **fields: Any) -> None:
        line = json.dumps({"ev": ev, "who": self._who, "lang": self._lang, **fields}, separators=(",", ":"))
        with self._lock:
            self._f.write(line + "\n")
            self._f.flush()


def read_run(run_dir: Path) -> List[Dict[str, Any]]:
    """Every event of a run, from every *.jsonl file, in client time order
    (a line cut by a kill is skipped)."""
    events: List[Dict[str, Any]] = []
    for path in sorted(Path(run_dir).glob("*.jsonl")):
        events.extend(_lines(path))
    events.sort(key=lambda e: (e.get("t1", e.get("t0", 0.0)), e.get("who", "")))
    return events


def _lines(path: Path) -> Iterator[Dict[str, Any]]:
    with open(path, "r", encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError:
                continue  # the last line of a process killed mid-write
