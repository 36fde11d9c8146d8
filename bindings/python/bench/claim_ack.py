#!/usr/bin/env python3
"""Claim+ack rate from Python, one client, against a local valkey-server.

Mirrors the "cycle" figures of the C benchmark (bench/src/throughput.cpp):
a queue of 100 backlogged lanes, 16-byte payloads, one client, and

  * claim then ack    -- two round trips per job (Queue.claim + Job.ack)
  * fused ack+claim   -- one round trip per job (Job.ack_and_claim)

Each figure is the median of --runs runs of --jobs jobs.  Without --url the
script starts (and always stops) its own throwaway server with
tests/valkey-server.sh.  With --c BINARY (claim_ack.c, built by
``cmake --build <build> --target echomq_py_claim_ack_c``) every Python run is
followed by the same loop in C against the same server, so the two are
measured under the same conditions.

    python3 bindings/python/bench/claim_ack.py [--url URL] [--unix] [--jobs N] [--runs R] [--c BINARY]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, List, Tuple

import echomq

ROOT = Path(__file__).resolve().parents[3]
LANES = 100
PAYLOAD = b"x" * 16


def fill(q: echomq.Queue, n: int) -> None:
    """n jobs spread round-robin over LANES lanes, in batches."""
    for start in range(0, n, 10000):
        q.enqueue_many([(f"lane{i % LANES:03d}", PAYLOAD) for i in range(start, min(n, start + 10000))])


def two_round_trips(q: echomq.Queue, n: int) -> int:
    done = 0
    while done < n:
        job = q.claim(lease=60)
        if job is None:
            break
        job.ack()
        done += 1
    return done


def fused(q: echomq.Queue, n: int) -> int:
    done = 0
    job = q.claim(lease=60)
    while job is not None:
        done += 1
        job = job.ack_and_claim(60) if done < n else (job.ack() or None)
    return done


Run = Tuple[float, float]  # (jobs/s, client CPU microseconds per job)


def python_run(q: echomq.Queue, loop: Callable[[echomq.Queue, int], int], jobs: int) -> Run:
    fill(q, jobs)
    t0, cpu0 = time.perf_counter(), time.process_time()
    done = loop(q, jobs)
    dt, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    if done != jobs:
        raise SystemExit(f"expected {jobs} jobs, handled {done}")
    return done / dt, cpu * 1e6 / done


def c_run(binary: str, url: str, q: echomq.Queue, mode: str, jobs: int) -> Run:
    fill(q, jobs)
    out = subprocess.run([binary, url, q.name, str(jobs), mode], check=True, capture_output=True, text=True)
    rate, cpu = out.stdout.split()
    return float(rate), float(cpu)


def line(name: str, runs: List[Run]) -> str:
    rates = [r for r, _ in runs]
    cpu = statistics.median(c for _, c in runs)
    return (f"  {name:40s} median {statistics.median(rates):7.0f} jobs/s, {cpu:5.1f} us client CPU/job"
            f"   (runs: {', '.join(f'{r:.0f}' for r in rates)})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", help="server URL (default: start a throwaway server)")
    ap.add_argument("--unix", action="store_true", help="use the throwaway server's unix socket")
    ap.add_argument("--jobs", type=int, default=20000, help="jobs per run (default 20000)")
    ap.add_argument("--runs", type=int, default=5, help="runs per figure (default 5)")
    ap.add_argument("--c", metavar="BINARY", help="also run the C twin (claim_ack_c) after each Python run")
    args = ap.parse_args()

    server_dir = None
    url = args.url
    if url is None:
        server_dir = tempfile.mkdtemp(prefix="emq-pybench-")
        script = ROOT / "tests" / "valkey-server.sh"
        url = subprocess.run(["bash", str(script), "start", server_dir], check=True, capture_output=True,
                             text=True).stdout.strip()
        if args.unix:
            url = f"unix://{server_dir}/valkey.sock"
    try:
        with echomq.connect(url) as client:
            q = client.queue(f"pybench-{int(time.time() * 1000)}")
            print(f"echomq {echomq.version()}, Python {sys.version.split()[0]}, {url.split('://')[0]}, "
                  f"{LANES} lanes, {len(PAYLOAD)}-byte payloads, {args.jobs} jobs x {args.runs} runs")
            for name, loop, mode in (("claim then ack (2 round trips)", two_round_trips, "two"),
                                     ("ack_and_claim (1 round trip)", fused, "fused")):
                py_rates: List[Run] = []
                c_rates: List[Run] = []
                for _ in range(args.runs):
                    py_rates.append(python_run(q, loop, args.jobs))
                    if args.c:
                        c_rates.append(c_run(args.c, url, q, mode, args.jobs))
                print(line("Python  " + name, py_rates))
                if c_rates:
                    print(line("C       " + name, c_rates))
                    ratio = statistics.median(r for r, _ in py_rates) / statistics.median(r for r, _ in c_rates)
                    extra = statistics.median(c for _, c in py_rates) - statistics.median(c for _, c in c_rates)
                    print(f"  {'':40s} rate Python / C = {ratio:.2f}; Python adds {extra:.1f} us CPU per job")
            problems = q.verify()
            if problems:
                print("verify:", problems)
                return 1
    finally:
        if server_dir is not None:
            subprocess.run(["bash", str(ROOT / "tests" / "valkey-server.sh"), "stop", server_dir], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
