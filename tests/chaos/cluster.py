"""The servers of a chaos run: a primary and a replica (valkey-server, append
only file on, each under the clock shim) watched by one valkey-sentinel, all
on free loopback ports, all started and stopped by their PIDs.

Clients reach the primary through the Sentinel URL, so they follow a
failover. Only this module starts or signals a server process."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from emq_valkey import Resp, RespError  # noqa: E402  (tests/emq_valkey.py: the one RESP client)

MASTER = "chaos"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(pred, timeout: float, step: float = 0.05) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            if pred():
                return True
        except (OSError, RespError):
            pass
        time.sleep(step)
    return False


class Node:
    """One valkey-server process, not daemonized (its PID is ours)."""

    def __init__(self, name: str, root: Path, fsync: str, shim: Optional[str], clock_file: Path) -> None:
        self.name, self.dir, self.fsync = name, root / name, fsync
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.shim, self.clock_file = shim, clock_file
        self.proc: Optional[subprocess.Popen] = None
        self.stopped = False  # SIGSTOPped

    @property
    def sock(self) -> str:
        return str(self.dir / "valkey.sock")

    def start(self, replicaof: Optional[int] = None) -> None:
        args = [os.environ.get("VALKEY_SERVER", "valkey-server"), "--bind", "127.0.0.1", "--port", str(self.port),
                "--dir", str(self.dir), "--unixsocket", self.sock, "--unixsocketperm", "700",
                "--appendonly", "yes", "--appendfsync", self.fsync, "--save", "",
                "--enable-debug-command", "yes", "--maxmemory-policy", "noeviction",
                "--logfile", str(self.dir / "valkey.log"), "--daemonize", "no"]
        if replicaof:
            args += ["--replicaof", "127.0.0.1", str(replicaof)]
        env = dict(os.environ, ECHOMQ_CLOCK_SHIFT_FILE=str(self.clock_file))
        if self.shim:
            env["LD_PRELOAD"] = self.shim
        self.proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.stopped = False
        if not wait_until(lambda: self.resp(1.0)("PING") in (b"PONG", "PONG"), 20.0):
            raise RuntimeError(f"{self.name} did not come up (see {self.dir}/valkey.log)")

    def resp(self, timeout: float = 2.0) -> Resp:
        return Resp(self.sock, timeout=timeout)

    def call(self, *args, timeout: float = 2.0):
        with self.resp(timeout) as r:
            return r(*args)

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def signal(self, sig: int) -> None:
        if self.alive:
            os.kill(self.proc.pid, sig)
            if sig == signal.SIGSTOP:
                self.stopped = True
            elif sig == signal.SIGCONT:
                self.stopped = False

    def kill9(self) -> None:
        if self.alive:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self.stopped = False

    def stop(self) -> None:
        if not self.alive:
            return
        if self.stopped:
            self.signal(signal.SIGCONT)
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.kill9()


class Sentinel:
    def __init__(self, root: Path, primary_port: int) -> None:
        self.dir = root / "sentinel"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        conf = self.dir / "sentinel.conf"
        conf.write_text(
            f"port {self.port}\nbind 127.0.0.1\ndaemonize no\ndir {self.dir}\n"
            f"logfile {self.dir}/sentinel.log\n"
            f"sentinel monitor {MASTER} 127.0.0.1 {primary_port} 1\n"
            # Long enough that a restart, a stop or a pause of the nemesis is
            # not taken for a death: failovers are the nemesis's own.
            f"sentinel down-after-milliseconds {MASTER} 20000\n"
            f"sentinel failover-timeout {MASTER} 10000\n"
            f"sentinel parallel-syncs {MASTER} 4\n")
        self.proc = subprocess.Popen([os.environ.get("VALKEY_SENTINEL", "valkey-sentinel"), str(conf)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not wait_until(lambda: self.primary_port() == primary_port, 20.0):
            self.stop()
            raise RuntimeError(f"valkey-sentinel did not come up (see {self.dir}/sentinel.log)")

    def call(self, *args, timeout: float = 2.0):
        with Resp(f"valkey://127.0.0.1:{self.port}", timeout=timeout) as r:
            return r(*args)

    def primary_port(self) -> int:
        r = self.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER)
        return int(r[1])

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Topology:
    """A primary, a replica and a Sentinel."""

    def __init__(self, root: Path, fsync: str, shim: Optional[str]) -> None:
        root.mkdir(parents=True, exist_ok=True)
        self.clock_file = root / "clock_offset_ms"
        self.clock_file.write_text("0")
        self.nodes: List[Node] = [Node(n, root, fsync, shim, self.clock_file) for n in ("n1", "n2")]
        self.sentinel: Optional[Sentinel] = None
        try:
            self.nodes[0].start()
            self.nodes[1].start(replicaof=self.nodes[0].port)
            self.wait_replica_synced(30.0)
            self.sentinel = Sentinel(root, self.nodes[0].port)
        except BaseException:
            self.stop_all()  # what did start is stopped by its PID
            raise

    @property
    def url(self) -> str:
        return f"valkey+sentinel://127.0.0.1:{self.sentinel.port}/{MASTER}"

    def primary(self) -> Node:
        port = self.sentinel.primary_port()
        return next(n for n in self.nodes if n.port == port)

    def replica(self) -> Node:
        p = self.primary()
        return next(n for n in self.nodes if n is not p)

    def wait_replica_synced(self, timeout: float) -> bool:
        def synced() -> bool:
            for n in self.nodes:
                info = n.call("INFO", "replication")
                text = info.decode() if isinstance(info, bytes) else str(info)
                if "role:slave" in text and "master_link_status:up" in text:
                    return True
            return False
        return wait_until(synced, timeout, 0.1)

    def restart(self, node: Node) -> None:
        """Start a node that is down again, as a replica unless it is the
        primary Sentinel names."""
        p = self.sentinel.primary_port()
        node.start(replicaof=None if node.port == p else p)

    def stop_all(self) -> None:
        if self.sentinel:
            self.sentinel.stop()
        for n in self.nodes:
            n.stop()
