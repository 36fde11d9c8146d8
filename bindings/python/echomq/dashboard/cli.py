"""The dashboard's command line and server start."""

from __future__ import annotations

import argparse
import ipaddress
import os
import secrets
import sys
from typing import List, Optional, Tuple

from .. import _convert
from ..client import Client
from ..errors import EchoMQError, InvalidArgument
from ..exporter import TOP_MAX

TOKEN_ENV = "ECHOMQ_DASHBOARD_TOKEN"
DEFAULT_BIND = "127.0.0.1:8642"


def parse_bind(text: str) -> Tuple[str, int]:
    """``host:port`` or ``[v6]:port`` to (host, port)."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise argparse.ArgumentTypeError(f"--bind must be HOST:PORT with a port in 1..65535, got {text!r}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, int(port)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _parser(prog: str) -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=prog, description="Serve a web dashboard of echomq queues and their lanes.")
    ap.add_argument("url", help="valkey://host:port[/db] or unix:///path")
    ap.add_argument("queues", nargs="*", metavar="queue", help="queues to show (default: every queue on the server)")
    ap.add_argument("--bind", default=DEFAULT_BIND, type=parse_bind, metavar="HOST:PORT",
                    help=f"address to listen on (default {DEFAULT_BIND}: loopback only)")
    ap.add_argument("--allow-actions", action="store_true",
                    help=f"enable pause, resume, weight, limit, rate, cap, redrive and delete; each needs the "
                         f"token ({TOKEN_ENV}, or one generated and printed at start)")
    ap.add_argument("--show-payloads", action="store_true", help="show job payloads on the job page")
    ap.add_argument("--interval", type=float, default=1.0, help="seconds between samples of a queue (default 1)")
    ap.add_argument("--window", type=float, default=180.0, help="seconds of history in the chart (default 180)")
    ap.add_argument("--top", type=int, default=10, help=f"deepest lanes per queue in /metrics, 0..{TOP_MAX} (default 10)")
    return ap


def main(argv: Optional[List[str]] = None, prog: str = "echomq-dashboard") -> int:
    args = _parser(prog).parse_args(argv)
    try:
        import uvicorn

        from .app import Settings, build_app
    except ImportError as exc:  # pragma: no cover - depends on the machine
        print(f"{prog}: the dashboard needs starlette and uvicorn ({exc}): pip install 'echomq[dashboard]'",
              file=sys.stderr)
        return 2
    if not 0.2 <= args.interval <= 60 or not 10 <= args.window <= 3600 or not 0 <= args.top <= TOP_MAX:
        print(f"{prog}: --interval must be 0.2..60 s, --window 10..3600 s, --top 0..{TOP_MAX}", file=sys.stderr)
        return 2
    host, port = args.bind
    token = os.environ.get(TOKEN_ENV) or None
    try:
        for q in args.queues:
            _convert.queue_name(q)
        probe = Client()
        try:
            probe.connect(args.url)
        except InvalidArgument:
            raise
        except EchoMQError as exc:
            # Served anyway: the pages say what is wrong and recover once the server is back.
            print(f"{prog}: warning: cannot reach {args.url} now: {exc}", file=sys.stderr)
        finally:
            probe.close()
    except InvalidArgument as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    if not is_loopback(host) and token is None:
        print(f"{prog}: warning: listening on {host}, reachable from other machines, and no {TOKEN_ENV} is set; "
              "anyone who reaches the port can read every queue it shows", file=sys.stderr)
    generated = False
    if args.allow_actions and token is None:
        token = secrets.token_urlsafe(24)
        generated = True
    settings = Settings(args.url, args.queues, allow_actions=args.allow_actions, token=token,
                        show_payloads=args.show_payloads, interval=args.interval, window=args.window, top=args.top)
    shown = f"[{host}]" if ":" in host else host
    print(f"echomq dashboard on http://{shown}:{port}/", flush=True)
    if args.allow_actions:
        if generated:
            print(f"actions token (shown once; paste it into the page): {token}", flush=True)
        else:
            print(f"actions token: from {TOKEN_ENV}", flush=True)
    config = uvicorn.Config(build_app(settings), host=host, port=port, log_level="warning",
                            timeout_graceful_shutdown=2, lifespan="on", access_log=False)
    uvicorn.Server(config).run()
    return 0
