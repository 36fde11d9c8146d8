"""A worker process for test_worker.py: drains a queue, appending the id of
each job its handler finishes to a file, until SIGTERM.

    python3 worker_proc.py URL QUEUE OUTFILE [HANDLER_SECONDS [LEASE_SECONDS]]
"""

from __future__ import annotations

import os
import sys
import threading
import time

import echomq


def main() -> int:
    url, name, out = sys.argv[1], sys.argv[2], sys.argv[3]
    work = float(sys.argv[4]) if len(sys.argv) > 4 else 0.005
    lease = float(sys.argv[5]) if len(sys.argv) > 5 else 30.0
    lock = threading.Lock()
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)

    def handler(job: echomq.Job) -> None:
        with lock:
            os.write(fd, b"start %d\n" % job.id)
        time.sleep(work)
        with lock:
            os.write(fd, b"%d\n" % job.id)

    with echomq.connect(url) as client:
        q = client.queue(name, lease=lease)
        print("ready", flush=True)
        stats = echomq.Worker(q, handler, concurrency=4, wait=1).run()
    os.close(fd)
    print(f"stopped acked={stats.acked} lost={stats.lost} errors={stats.errors}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
