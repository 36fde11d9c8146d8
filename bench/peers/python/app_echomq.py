"""EchoMQ's side of the bench: the Python Worker (threads) or the
echomq.aio Worker at concurrency 8, as their docs run them.

    python app_echomq.py threads|aio URL QUEUE [PREFETCH [TARGET_WAIT_MS]]
"""

import asyncio
import sys

import echomq
import echomq.aio

import record


def main() -> int:
    kind, url, queue = sys.argv[1], sys.argv[2], sys.argv[3]
    opts = {"concurrency": 8}
    if len(sys.argv) > 4 and sys.argv[4] != "-":
        opts["prefetch"] = int(sys.argv[4])
    if len(sys.argv) > 5 and sys.argv[5] != "-":
        opts["target_wait"] = int(sys.argv[5]) / 1000.0
    client = echomq.connect(url)
    q = client.queue(queue)
    if kind == "threads":
        def handler(job: echomq.Job) -> None:
            record.run_sync(*record.parse(job.payload.decode()))

        echomq.Worker(q, handler, **opts).run()  # until SIGTERM (a drain)
    else:
        async def ahandler(job: echomq.Job) -> None:
            await record.run_async(*record.parse(job.payload.decode()))

        w = echomq.aio.Worker(q, ahandler, **opts)

        async def run() -> None:
            loop = asyncio.get_running_loop()
            import signal

            task = asyncio.current_task()
            loop.add_signal_handler(signal.SIGTERM, task.cancel)
            try:
                await w.run()
            except asyncio.CancelledError:
                pass

        asyncio.run(run())
    client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
