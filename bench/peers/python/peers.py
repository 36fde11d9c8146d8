"""EchoMQ's Python workers side by side with rq, arq and Celery on one
valkey-server (run.sh starts it and installs the peers).

    python peers.py --url URL [--libs echomq,aio,rq,arq,celery] [--jobs 20000]
        [--mem-jobs N] [--heavy 10000 --small 99 --small-jobs 10]
        [--backlog 20000 --quiet 20 --quiet-rate 400 --handler-ms 2
         --warmup 3 --window 10 --max-wait 30] [--phases drain,mem,skew,overload]
        [--json FILE]

Every library runs the same jobs; each worker records the start of every job
(record.py), so waits, start order and progress are read the same way for
all. Phases, per library, on a flushed server:
  drain     N no-op jobs over 100 tenants enqueued, then the workers started:
            jobs/s from the first start to the last; server CPU and commands
            per job (INFO cpu / commandstats, enqueue through drain)
  mem       N pending jobs with a 100-byte payload: used_memory per job
  skew      one heavy tenant (10,000) and 99 small ones (10 each) spread over
            the arrival order: at which start each small tenant finished
  overload  (e) a heavy tenant kept --backlog deep, enqueuing as fast as the
            workers drain; quiet tenants at --quiet-rate jobs/s in total;
            handlers of --handler-ms. Quiet waits (enqueue -> start) of the
            jobs sent in the window after the warm-up: p50, p99, max; heavy
            p50; throughput. A wait not over by --max-wait is counted as that
            long and the figure printed as a lower bound (">").
"""

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from typing import Dict, List

import redis

import adapters
import record

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = {"info", "ping", "select", "hello", "client", "auth", "flushall", "config"}


class Server:
    """INFO figures of the shared server; our own INFO calls not counted."""

    def __init__(self, url: str):
        self.r = redis.Redis.from_url(adapters._redis_url(url))

    def snap(self) -> Dict:
        cpu = self.r.info("cpu")
        stats = self.r.info("commandstats")
        calls = {k[len("cmdstat_"):]: v["calls"] for k, v in stats.items()}
        return {"cpu": cpu["used_cpu_sys"] + cpu["used_cpu_user"],
                "mem": self.r.info("memory")["used_memory"], "calls": calls}

    @staticmethod
    def delta(pre: Dict, post: Dict, jobs: int) -> Dict:
        cmds = sum(n - pre["calls"].get(c, 0) for c, n in post["calls"].items() if c not in SKIP)
        return {"cpu_us_per_job": (post["cpu"] - pre["cpu"]) * 1e6 / jobs,
                "commands_per_job": cmds / jobs, "memory_per_job": (post["mem"] - pre["mem"]) / jobs}

    def flush(self) -> None:
        self.r.flushall()


class Log:
    """The workers' records, read as they are appended."""

    def __init__(self, path: str):
        self.path = path
        open(path, "wb").close()
        self.f = open(path, "rb")
        self.buf = b""
        self.records: List = []

    def poll(self) -> List:
        self.buf += self.f.read()
        n = len(self.buf) // record.RECORD.size
        new = [record.RECORD.unpack_from(self.buf, i * record.RECORD.size) for i in range(n)]
        self.buf = self.buf[n * record.RECORD.size:]
        self.records.extend(new)
        return new


class Workers:
    """The library's worker processes, in a process group of their own."""

    def __init__(self, lib, log: str, url: str):
        env = dict(os.environ, PEERS_LOG=log, PEERS_URL=adapters._redis_url(url),
                   PYTHONPATH=HERE + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self.out = tempfile.TemporaryFile()
        self.p = subprocess.Popen(lib.worker_argv(), cwd=HERE, env=env, stdout=self.out,
                                  stderr=subprocess.STDOUT, start_new_session=True)

    def alive(self) -> bool:
        return self.p.poll() is None

    def stop(self) -> None:
        if self.p.poll() is None:
            os.killpg(self.p.pid, signal.SIGTERM)
            try:
                self.p.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.p.pid, signal.SIGKILL)
                self.p.wait()

    def output(self) -> str:
        self.out.seek(0)
        return self.out.read().decode(errors="replace")[-3000:]


def wait_for(log: Log, workers: Workers, n: int, idle_s: float = 60.0) -> None:
    """Until n records are in; fails when none came for idle_s or the
    workers died."""
    last, seen = time.monotonic(), len(log.records)
    while len(log.records) < n:
        time.sleep(0.005)
        if log.poll():
            last = time.monotonic()
        if not workers.alive():
            raise SystemExit(f"the workers exited:\n{workers.output()}")
        if time.monotonic() - last > idle_s:
            raise SystemExit(f"no job started for {idle_s:.0f} s ({len(log.records) - seen} of "
                             f"{n - seen} done):\n{workers.output()}")


def interleave(counts: List[int]) -> List[int]:
    """The skewed arrival order of bench/compare (job j of producer p at
    (j + 0.5) / counts[p], ties by p)."""
    slots = sorted(((j + 0.5) / n, p) for p, n in enumerate(counts) for j in range(n))
    return [p for _, p in slots]


def phase_drain(name, url, srv, o) -> Dict:
    srv.flush()
    lib = adapters.make(name, url)
    log = Log(os.path.join(o.tmp, "drain.log"))
    pre = srv.snap()
    lib.enqueue([(i % 100, 0.0, 0, "") for i in range(o.jobs)])
    w = Workers(lib, log.path, url)
    try:
        wait_for(log, w, o.jobs)
        post = srv.snap()
    finally:
        w.stop()
        lib.close()
    starts = sorted(r[2] for r in log.records)
    out = Server.delta(pre, post, o.jobs)
    del out["memory_per_job"]
    out["jobs_per_s"] = (o.jobs - 1) / max(starts[-1] - starts[0], 1e-9)
    return out


def phase_mem(name, url, srv, o) -> Dict:
    srv.flush()
    lib = adapters.make(name, url)
    pre = srv.snap()
    lib.enqueue([(i % 100, 0.0, 0, "x" * 100) for i in range(o.mem_jobs)])
    lib.close()  # the producer's connections (and their buffers) gone first
    time.sleep(0.2)
    post = srv.snap()
    srv.flush()
    return {"bytes_per_job": Server.delta(pre, post, o.mem_jobs)["memory_per_job"]}


def phase_skew(name, url, srv, o) -> Dict:
    srv.flush()
    counts = [o.heavy] + [o.small_jobs] * o.small
    order = interleave(counts)
    lib = adapters.make(name, url)
    log = Log(os.path.join(o.tmp, "skew.log"))
    lib.enqueue([(p, 0.0, 0, "") for p in order])
    w = Workers(lib, log.path, url)
    try:
        wait_for(log, w, len(order))
    finally:
        w.stop()
        lib.close()
    recs = sorted(log.records, key=lambda r: r[2])
    last = {}
    for pos, r in enumerate(recs, 1):
        last[r[0]] = pos
    small = [last[p] for p in range(1, o.small + 1)]
    return {"median": statistics.median(small), "max": max(small), "jobs": len(order)}


def pct(xs: List[float], q: float) -> float:
    v = sorted(xs)
    return v[min(len(v) - 1, int(q * len(v)))] if v else float("nan")


def phase_overload(name, url, srv, o) -> Dict:
    srv.flush()
    heavy, quiet = adapters.make(name, url), adapters.make(name, url)
    log = Log(os.path.join(o.tmp, "overload.log"))
    now = time.time
    heavy.enqueue([(0, round(now(), 6), o.handler_ms, "")] * o.backlog)
    enqueued = {"heavy": o.backlog, "quiet": []}  # quiet: enqueue times of window jobs
    stop = threading.Event()
    window = {}  # "start", "end": epoch seconds of the measured window

    def quiet_sender() -> None:
        # Paced by the clock, not by sleeps: a late send is caught up.
        t0, k = time.monotonic(), 0
        while not stop.is_set():
            due = t0 + k / o.quiet_rate
            d = due - time.monotonic()
            if d > 0:
                time.sleep(d)
            t = round(now(), 6)  # as it comes back from every library's payload
            quiet.enqueue([(1 + k % o.quiet, t, o.handler_ms, "")])
            if "start" in window and window["start"] <= t < window["end"]:
                enqueued["quiet"].append(t)
            k += 1

    w = Workers(heavy, log.path, url)
    sender = threading.Thread(target=quiet_sender, daemon=True)
    depths: List[int] = []
    try:
        # The run starts when the first job does (worker start-up left out).
        wait_for(log, w, 1)
        window["start"] = now() + o.warmup
        window["end"] = window["start"] + o.window
        sender.start()
        heavy_started = 0
        deadline = window["end"] + o.max_wait
        while True:
            time.sleep(0.01)
            if not w.alive():
                raise SystemExit(f"the workers exited:\n{w.output()}")
            heavy_started += sum(1 for r in log.poll() if r[0] == 0)
            pending = enqueued["heavy"] - heavy_started
            t = round(now(), 6)
            if window["start"] <= t < window["end"]:
                depths.append(pending)
            if pending < o.backlog:  # the heavy tenant sends as fast as it is drained
                k = o.backlog - pending
                heavy.enqueue([(0, t, o.handler_ms, "")] * k)
                enqueued["heavy"] += k
            if t >= window["end"]:
                stop.set()
                sent = set(enqueued["quiet"])
                started = sum(1 for r in log.records if r[0] > 0 and r[1] in sent)
                if started >= len(sent) or t >= deadline:
                    break
    finally:
        stop.set()
        w.stop()
        sender.join()
        heavy.close()
        quiet.close()
    end = now()
    sent = enqueued["quiet"]
    waits = {r[1]: (r[2] - r[1]) * 1000 for r in log.records if r[0] > 0 and r[1] in set(sent)}
    censored = [(end - t) * 1000 for t in sent if t not in waits]
    qw = list(waits.values()) + censored
    hw = [(r[2] - r[1]) * 1000 for r in log.records
          if r[0] == 0 and window["start"] <= r[2] < window["end"]]
    in_window = sum(1 for r in log.records if window["start"] <= r[2] < window["end"])
    bound = min(censored) if censored else float("inf")
    return {"quiet_p50_ms": pct(qw, 0.5), "quiet_p99_ms": pct(qw, 0.99), "quiet_max_ms": max(qw),
            "quiet_jobs": len(sent), "quiet_unstarted": len(censored),
            # a percentile at or past the shortest unfinished wait is only a lower bound
            "p50_lower_bound": pct(qw, 0.5) >= bound, "p99_lower_bound": pct(qw, 0.99) >= bound,
            "heavy_p50_ms": pct(hw, 0.5), "jobs_per_s": in_window / o.window,
            "backlog_mean": statistics.mean(depths) if depths else 0}


PHASES = {"drain": phase_drain, "mem": phase_mem, "skew": phase_skew, "overload": phase_overload}


def fmt(v: float, lower: bool = False) -> str:
    s = f"{v:,.0f}" if v >= 100 else f"{v:.1f}" if v >= 10 else f"{v:.2f}"
    return (">" if lower else "") + s


def table(results: Dict[str, Dict], base: str) -> str:
    """One table; x = the first library's (EchoMQ's Worker) figure over the row's."""
    b = results[base]
    rows = []
    head = ("library", "drain j/s", "x", "CPU us/job", "x", "cmds/job", "bytes/job", "skew med/max",
            "quiet p50", "quiet p99", "quiet max", "p99 x", "heavy p50", "e j/s")
    rows.append(head)
    for name, r in results.items():
        d, m, s, e = r.get("drain"), r.get("mem"), r.get("skew"), r.get("overload")
        row = [r["label"]]
        row += [fmt(d["jobs_per_s"]), fmt(b["drain"]["jobs_per_s"] / d["jobs_per_s"]),
                fmt(d["cpu_us_per_job"]), fmt(b["drain"]["cpu_us_per_job"] / d["cpu_us_per_job"]),
                fmt(d["commands_per_job"])] if d else ["-"] * 5
        row += [fmt(m["bytes_per_job"])] if m else ["-"]
        row += [f"{s['median']:,.0f}/{s['max']:,.0f}"] if s else ["-"]
        if e:
            row += [fmt(e["quiet_p50_ms"], e["p50_lower_bound"]), fmt(e["quiet_p99_ms"], e["p99_lower_bound"]),
                    fmt(e["quiet_max_ms"], e["quiet_unstarted"] > 0),
                    ("<" if e["p99_lower_bound"] else "") + f'{b["overload"]["quiet_p99_ms"] / e["quiet_p99_ms"]:.4f}'
                    if b.get("overload") else "-",
                    fmt(e["heavy_p50_ms"]), fmt(e["jobs_per_s"])]
        else:
            row += ["-"] * 6
        rows.append(row)
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(head))]
    lines = ["  ".join(str(c).rjust(w) if i else str(c).ljust(w) for i, (c, w) in enumerate(zip(r, widths)))
             for r in rows]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", required=True)
    ap.add_argument("--libs", default="echomq,aio,rq,arq,celery")
    ap.add_argument("--phases", default="drain,mem,skew,overload")
    ap.add_argument("--jobs", type=int, default=20000)
    ap.add_argument("--mem-jobs", type=int, default=20000)
    ap.add_argument("--heavy", type=int, default=10000)
    ap.add_argument("--small", type=int, default=99)
    ap.add_argument("--small-jobs", type=int, default=10)
    ap.add_argument("--backlog", type=int, default=20000)
    ap.add_argument("--quiet", type=int, default=20)
    ap.add_argument("--quiet-rate", type=float, default=400)
    ap.add_argument("--handler-ms", type=float, default=2)
    ap.add_argument("--warmup", type=float, default=3)
    ap.add_argument("--window", type=float, default=10)
    ap.add_argument("--max-wait", type=float, default=30)
    ap.add_argument("--json")
    o = ap.parse_args()
    srv = Server(o.url)
    results: Dict[str, Dict] = {}
    libs = o.libs.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        o.tmp = tmp
        for name in libs:
            results[name] = {"label": adapters.LABELS[name]}
            for ph in o.phases.split(","):
                print(f"  {name}: {ph} ...", file=sys.stderr, flush=True)
                results[name][ph] = PHASES[ph](name, o.url, srv, o)
                print(f"    {json.dumps(results[name][ph])}", file=sys.stderr, flush=True)
    print(f"\nPython peers: concurrency 8 each; drain of {o.jobs:,} no-op jobs; memory of "
          f"{o.mem_jobs:,} pending 100-byte jobs; skew {o.heavy:,} + {o.small} x {o.small_jobs}; "
          f"overload: backlog {o.backlog:,}, {o.quiet} quiet tenants at {o.quiet_rate:g}/s, "
          f"{o.handler_ms:g} ms handlers, waits in ms over a {o.window:g} s window after {o.warmup:g} s")
    print("x = EchoMQ Worker's figure over the row's (drain: >= 5 wanted; CPU: <= 0.2; quiet p99: <= 0.01)")
    print(table(results, libs[0]))
    if o.json:
        with open(o.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
