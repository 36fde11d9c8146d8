"""A web dashboard for the lanes: ``python -m echomq dashboard URL [QUEUE...]``
(also ``echomq-dashboard``), installed with ``pip install 'echomq[dashboard]'``.

Pages for the queues, a queue's lanes with a live chart of jobs served per
second, dead letters, a job by id, and ``/metrics`` (the exporter's text).
Actions (pause, resume, weight, limit, rate, cap, redrive, delete) are off
unless ``--allow-actions``, and then need the token.  See
docs/operations.md, "Dashboard".
"""

from .cli import main

__all__ = ["main"]
