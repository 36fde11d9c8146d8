"""The Python tasks layer's drain against the raw Worker, in one run.

    python3 bench/workers/tasks.py URL [N=20000] [RUNS=3]

Both drain the same jobs (enqueued by one task, over 100 lanes, 8 handler
threads): the raw Worker with a no-op handler, App.worker() dispatching by
name to a no-op task (its arguments decoded, its None result kept as none).
Runs alternate; prints the medians and their ratio (target >= 0.9x).
"""

import sys
import threading
import time

import echomq


def drain(make_worker, total):
    done = threading.Event()
    count = [0]
    lock = threading.Lock()

    def on_completed(job, result):
        with lock:
            count[0] += 1
            if count[0] == total:
                done.set()

    w = make_worker(on_completed)
    t0 = time.monotonic()
    w.start()
    done.wait()
    w.stop()
    w.join()
    return total / (time.monotonic() - t0)


def noop_app(c, queue, n):
    """An App on `queue` with one no-op task, "noop", and n of its jobs
    enqueued over 100 lanes: what both layer benches drain."""
    app = echomq.App(c, queue=queue)

    @app.task(name="noop", lane=lambda i: f"l{i % 100}")
    def noop(i):
        return None

    for i in range(n):
        noop.enqueue(i)
    return app


def medians(rates):
    return {k: sorted(v)[len(v) // 2] for k, v in rates.items()}


def main() -> int:
    url = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    rates = {"raw": [], "tasks": []}
    for r in range(runs):
        for kind in ("raw", "tasks"):
            with echomq.connect(url) as c:
                name = f"bench-tasks-{kind}-{r}-{time.time_ns()}"
                app = noop_app(c, name, n)
                q = c.queue(name)
                if kind == "raw":
                    rate = drain(lambda hook: echomq.Worker(q, lambda job: None, concurrency=8, on_completed=hook), n)
                else:
                    rate = drain(lambda hook: app.worker(concurrency=8, on_completed=hook), n)
                rates[kind].append(rate)
    med = medians(rates)
    print(f"raw Worker {med['raw']:.0f} jobs/s; tasks App.worker {med['tasks']:.0f} jobs/s; "
          f"ratio {med['tasks'] / med['raw']:.3f}x (medians of {runs}, {n} jobs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
