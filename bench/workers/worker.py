"""Drains N jobs through the Python Worker (no-op handler); for run.sh.

    python3 worker.py URL QUEUE N CONCURRENCY   -> prints "jobs_per_s <rate>"
"""

import sys
import threading
import time

import echomq


def main() -> int:
    url, name, total, conc = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    lock = threading.Lock()
    count = 0
    finished = threading.Event()

    def handler(job: echomq.Job) -> None:
        nonlocal count
        with lock:
            count += 1
            if count == total:
                finished.set()

    with echomq.connect(url) as client:
        w = echomq.Worker(client.queue(name), handler, concurrency=conc)
        t0 = time.monotonic()
        w.start()
        finished.wait()
        # The last ack is settled by the stop's drain, as in the C and Go runs.
        w.stop()
        w.join()
        secs = time.monotonic() - t0
    print(f"jobs_per_s {total / secs:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
