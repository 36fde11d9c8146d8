"""The nemesis: seeded, random faults against a running topology and its
workers, each written to the run's nemesis.jsonl with its client times.

Faults (FAULTS, by kind): heavy ones touch the primary process or its role
and run one at a time; light ones may overlap a heavy one.

- worker_kill  kill -9 of a worker process (a replacement starts)
- server_kill  kill -9 of the primary, restarted from its append only file
- failover     SENTINEL FAILOVER: the replica is promoted by the Sentinel
- client_kill  a storm of CLIENT KILL TYPE normal, every few ms for 1-3 s
- pause        CLIENT PAUSE (ALL or WRITE) for 0.3-2 s
- debug_sleep  DEBUG SLEEP 0.3-2 s: the server stalls
- clock_step   the servers' wall clocks stepped to an offset in ±20 s
- memory       maxmemory just above the memory in use, for 1-4 s
- partition    SIGSTOP of the primary for 0.5-3 s, then SIGCONT (a process
               freeze, not a network namespace: it needs no privileges and
               cuts every client and the replica alike)
"""

from __future__ import annotations

import json
import random
import signal
import threading
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional

from cluster import Topology, RespError, wait_until
from hist import now_ms

HEAVY = ("server_kill", "failover", "debug_sleep", "partition")
LIGHT = ("worker_kill", "client_kill", "pause", "clock_step", "memory")
FAULTS = HEAVY + LIGHT
CLOCK_STEP_MAX_MS = 20000


class Nemesis:
    def __init__(self, topo: Topology, run_dir: Path, seed: int, kinds: List[str],
                 kill_worker: Callable[[random.Random], Optional[str]]) -> None:
        self.topo, self.rng = topo, random.Random(seed * 7919 + 1)
        self.kinds = [k for k in FAULTS if k in kinds]
        self.kill_worker = kill_worker
        self._f = open(run_dir / "nemesis.jsonl", "a", buffering=1)
        self._lock = threading.Lock()
        self.counts: Dict[str, int] = {}
        self._stop = threading.Event()
        self._heavy: Optional[threading.Thread] = None
        self._light: Optional[threading.Thread] = None

    def log(self, kind: str, **fields) -> None:
        with self._lock:
            self._f.write(json.dumps({"ev": "fault", "kind": kind, **fields}, separators=(",", ":")) + "\n")

    # -- the loop -----------------------------------------------------------

    def run(self, seconds: float) -> None:
        """Injects faults for `seconds`, then waits for the last to end."""
        end = time.monotonic() + seconds
        while time.monotonic() < end and self.kinds:
            kind = self.rng.choice(self.kinds)
            heavy = kind in HEAVY
            slot = self._heavy if heavy else self._light
            if slot is None or not slot.is_alive():
                params = self._params(kind)
                t = threading.Thread(target=self._one, args=(kind, params), daemon=True)
                t.start()
                if heavy:
                    self._heavy = t
                else:
                    self._light = t
            time.sleep(self.rng.uniform(0.5, 2.5))
        for t in (self._heavy, self._light):
            if t is not None:
                t.join(60)

    def _params(self, kind: str) -> dict:
        """The fault's random choices, drawn on the loop's thread so that a
        seed gives the same sequence of faults."""
        r = self.rng
        return {
            "worker_kill": lambda: {"pick": r.random()},
            "server_kill": lambda: {"down_s": r.uniform(0.1, 1.5)},
            "failover": lambda: {"how": r.choice(["live", "crash", "crash"])},
            "client_kill": lambda: {"secs": r.uniform(1, 3), "every_ms": r.uniform(3, 20)},
            "pause": lambda: {"ms": r.randint(300, 2000), "mode": r.choice(["ALL", "WRITE"])},
            "debug_sleep": lambda: {"secs": round(r.uniform(0.3, 2.0), 2)},
            "clock_step": lambda: {"offset_ms": r.choice([0, r.randint(-CLOCK_STEP_MAX_MS, CLOCK_STEP_MAX_MS)])},
            "memory": lambda: {"secs": r.uniform(1, 4), "headroom": r.randint(0, 256 * 1024)},
            "partition": lambda: {"secs": r.uniform(0.5, 3.0)},
        }[kind]()

    def _one(self, kind: str, params: dict) -> None:
        t0 = now_ms()
        try:
            detail = getattr(self, "_" + kind)(**params) or {}
            ok = True
        except (OSError, RespError, RuntimeError, StopIteration) as e:
            detail, ok = {"error": str(e)}, False
        with self._lock:
            self.counts[kind] = self.counts.get(kind, 0) + (1 if ok else 0)
        self.log(kind, t0=t0, t1=now_ms(), ok=ok, **params, **detail)

    # -- the faults ---------------------------------------------------------

    def _worker_kill(self, pick: float) -> dict:
        who = self.kill_worker(random.Random(pick))
        if who is None:
            raise RuntimeError("no worker to kill")
        return {"victim": who}

    def _server_kill(self, down_s: float) -> dict:
        p = self.topo.primary()
        crash = now_ms()
        p.kill9()
        time.sleep(down_s)
        self.topo.restart(p)
        return {"node": p.name, "crash": crash, "fsync": p.fsync, "up": now_ms()}

    def _failover(self, how: str) -> dict:
        """SENTINEL FAILOVER with the old primary running ("live": it takes
        writes until the Sentinel demotes it, at its next look at the old
        primary, up to about 10 s later) or killed just before ("crash": it
        restarts as a replica of the new one)."""
        old = self.topo.primary()
        if not self.topo.wait_replica_synced(10.0):
            raise RuntimeError("no replica in sync")
        start = now_ms()
        if how == "crash":
            old.kill9()
        self.topo.sentinel.call("SENTINEL", "FAILOVER", "chaos")
        if not wait_until(lambda: self.topo.sentinel.primary_port() != old.port, 20.0, 0.05):
            if how == "crash":
                self.topo.restart(old)
            raise RuntimeError("the Sentinel did not switch primaries in 20 s")
        new = self.topo.primary()
        if how == "crash":
            self.topo.restart(old)  # as a replica of the new primary
            return {"old": old.name, "new": new.name, "start": start, "end": start}

        def demoted() -> bool:
            return b"role:slave" in old.call("INFO", "replication")
        # Until the old primary is a replica it may still take writes that
        # the new one never sees: the end of the loss window.
        wait_until(demoted, 30.0, 0.05)
        return {"old": old.name, "new": new.name, "start": start, "end": now_ms()}

    def _client_kill(self, secs: float, every_ms: float) -> dict:
        killed, errors, end = 0, 0, time.monotonic() + secs
        while time.monotonic() < end:
            try:  # the primary may change or restart under a storm: ask again
                with self.topo.primary().resp(2.0) as r:
                    while time.monotonic() < end:
                        killed += int(r("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes"))
                        time.sleep(every_ms / 1000.0)
            except (OSError, RespError, StopIteration):
                errors += 1
                time.sleep(0.05)
        return {"killed": killed, "errors": errors}

    def _pause(self, ms: int, mode: str) -> dict:
        p = self.topo.primary()
        p.call("CLIENT", "PAUSE", ms, mode)
        time.sleep(ms / 1000.0)
        return {"node": p.name}

    def _debug_sleep(self, secs: float) -> dict:
        p = self.topo.primary()
        p.call("DEBUG", "SLEEP", secs, timeout=secs + 5)
        return {"node": p.name}

    def _clock_step(self, offset_ms: int) -> dict:
        before = int(self.topo.clock_file.read_text() or 0)
        tmp = self.topo.clock_file.with_suffix(".tmp")
        tmp.write_text(str(offset_ms))
        tmp.replace(self.topo.clock_file)
        return {"from_ms": before}

    def _memory(self, secs: float, headroom: int) -> dict:
        p = self.topo.primary()
        used = int(_info_field(p.call("INFO", "memory"), "used_memory"))
        p.call("CONFIG", "SET", "maxmemory", used + headroom)
        try:
            time.sleep(secs)
        finally:
            wait_until(lambda: p.call("CONFIG", "SET", "maxmemory", 0) == "OK", 10.0, 0.1)
        return {"node": p.name, "used": used}

    def _partition(self, secs: float) -> dict:
        p = self.topo.primary()
        p.signal(signal.SIGSTOP)
        try:
            time.sleep(secs)
        finally:
            p.signal(signal.SIGCONT)
        return {"node": p.name}

    # -- the end ------------------------------------------------------------

    def heal(self) -> None:
        """Undoes whatever is left: every node running and not stopped, the
        clocks and memory back, no pause, the replica in sync."""
        for n in self.topo.nodes:
            if n.stopped:
                n.signal(signal.SIGCONT)
        self._clock_step(0)
        for n in self.topo.nodes:
            if not n.alive:
                self.topo.restart(n)
        for n in self.topo.nodes:
            wait_until(lambda: n.call("CONFIG", "SET", "maxmemory", 0) == "OK", 10.0, 0.1)
            wait_until(lambda: n.call("CLIENT", "UNPAUSE") == "OK", 10.0, 0.1)
        self.topo.wait_replica_synced(30.0)
        self.log("heal", t1=now_ms())


def _info_field(info, name: str) -> str:
    text = info.decode() if isinstance(info, bytes) else str(info)
    for line in text.splitlines():
        if line.startswith(name + ":"):
            return line.split(":", 1)[1].strip()
    raise RuntimeError(f"INFO has no {name}")
