"""Command line: run a Worker over a queue, like ``rq worker``, or serve
queue figures to Prometheus.

    python3 -m echomq worker URL QUEUE package.module:function [options]
    python3 -m echomq exporter URL QUEUE... [--port 9808] [--top 10]
    python3 -m echomq dashboard URL [QUEUE...] [--bind 127.0.0.1:8642] [--allow-actions]

The handler is imported from ``package.module`` (the current directory is on
the import path) and called with each :class:`echomq.Job`.  SIGINT/SIGTERM
stop the worker gracefully; ``--burst`` drains the queue and exits.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from typing import List, Optional

from .client import connect
from .worker import DEFAULT_CONCURRENCY, Handler, Worker


def load_handler(spec: str) -> Handler:
    """Imports ``module:function`` (or ``module.function``) and returns it."""
    module_name, sep, attr = spec.partition(":")
    if not sep:
        module_name, _, attr = spec.rpartition(".")
    if not module_name or not attr:
        raise SystemExit(f"handler must be module:function, got {spec!r}")
    if "" not in sys.path:
        sys.path.insert(0, "")
    obj = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    if not callable(obj):
        raise SystemExit(f"{spec} is not callable")
    return obj


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point of ``python3 -m echomq``."""
    args_in = sys.argv[1:] if argv is None else list(argv)
    if args_in[:1] == ["dashboard"]:
        # Its own parser (echomq/dashboard/cli.py), shared with echomq-dashboard.
        from .dashboard.cli import main as dashboard_main

        return dashboard_main(args_in[1:], prog="python3 -m echomq dashboard")
    ap = argparse.ArgumentParser(prog="python3 -m echomq", description="echomq command line")
    sub = ap.add_subparsers(dest="command", required=True)
    w = sub.add_parser("worker", help="run a handler over a queue")
    w.add_argument("url", help="valkey://host:port[/db] or unix:///path")
    w.add_argument("queue", help="queue name")
    w.add_argument("handler", help="module:function called with each job")
    w.add_argument("-c", "--concurrency", type=int, default=DEFAULT_CONCURRENCY,
                   help=f"handler threads (default {DEFAULT_CONCURRENCY})")
    w.add_argument("--prefetch", type=int, default=None,
                   help="jobs claimed ahead of the handlers (default: concurrency)")
    w.add_argument("--weighted", action="store_true", help="serve weighted turns (lane weights apply)")
    w.add_argument("--lease", type=float, default=30.0, help="lease per job in seconds (default 30)")
    w.add_argument("--retry-in", type=float, default=None,
                   help="retry delay after a failure in seconds (default: exponential backoff)")
    w.add_argument("--burst", type=float, nargs="?", const=1.0, default=None, metavar="IDLE",
                   help="exit once no job was ready for IDLE seconds (default 1)")
    w.add_argument("-v", "--verbose", action="store_true", help="log at INFO level")
    e = sub.add_parser("exporter", help="serve queue figures to Prometheus (needs prometheus_client)")
    e.add_argument("url", help="valkey://host:port[/db] or unix:///path")
    e.add_argument("queues", nargs="+", metavar="queue", help="queue names")
    e.add_argument("--port", type=int, default=9808, help="HTTP port of /metrics (default 9808)")
    e.add_argument("--addr", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    e.add_argument("--top", type=int, default=10, help="deepest lanes reported per queue, 0..100 (default 10)")
    sub.add_parser("dashboard", add_help=False,
                   help="serve a web dashboard of the queues (needs echomq[dashboard]; see its --help)")
    args = ap.parse_args(args_in)
    if args.command == "exporter":
        return run_exporter(args)

    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    handler = load_handler(args.handler)
    with connect(args.url, lease=args.lease) as client:
        worker = Worker(client.queue(args.queue), handler, concurrency=args.concurrency,
                        prefetch=args.prefetch, weighted=args.weighted, retry_in=args.retry_in,
                        idle_timeout=args.burst)
        stats = worker.run()
    print(f"acked={stats.acked} failed={stats.failed} retried={stats.retried} dead={stats.dead} "
          f"lost={stats.lost} errors={stats.errors} discarded={stats.discarded}", flush=True)
    return 0


def run_exporter(args: argparse.Namespace) -> int:
    """Serves /metrics until SIGINT or SIGTERM."""
    import signal
    import threading

    from .exporter import serve

    server, _, _ = serve(args.url, args.queues, port=args.port, addr=args.addr, top=args.top)
    print(f"serving http://{args.addr}:{server.server_port}/metrics", flush=True)
    done = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: done.set())
    done.wait()
    server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
