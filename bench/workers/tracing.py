"""The Python tasks' drain with OpenTelemetry tracing on against off, in one run.

    python3 bench/workers/tracing.py URL [N=20000] [RUNS=3] [SAMPLED=1.0]

Both drain the same jobs (one task's, over 100 lanes, 8 handler threads,
App.worker() dispatching by name to a no-op task). "on": echomq.otel
instrumented with the SDK's TracerProvider (SAMPLED: the share of traces
sampled, 1.0 = every span; a BatchSpanProcessor to an exporter that drops
them), the jobs enqueued
traced (their headers carry the context) and each handler run in its
CONSUMER span; "off": no tracing. Runs alternate; prints the medians and
their ratio (target >= 0.8x).
"""

import sys
import time

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased

import echomq
import echomq.otel

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from tasks import drain, medians, noop_app  # noqa: E402  (the one drain loop of these benches)


class _Drop(SpanExporter):
    def export(self, spans):
        return SpanExportResult.SUCCESS


def main() -> int:
    url = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    sampled = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
    provider = TracerProvider(sampler=ParentBased(TraceIdRatioBased(sampled)))
    provider.add_span_processor(BatchSpanProcessor(_Drop()))
    rates = {"off": [], "on": []}
    try:
        for r in range(runs):
            for kind in ("off", "on"):
                with echomq.connect(url) as c:
                    if kind == "on":  # before the enqueues: their headers carry the context
                        echomq.otel.instrument(tracer_provider=provider)
                    app = noop_app(c, f"bench-tracing-{kind}-{r}-{time.time_ns()}", n)
                    rates[kind].append(drain(lambda hook: app.worker(concurrency=8, on_completed=hook), n))
                    echomq.otel.uninstrument()
    finally:
        echomq.otel.uninstrument()
        provider.shutdown()
    med = medians(rates)
    print(f"tracing off {med['off']:.0f} jobs/s; tracing on {med['on']:.0f} jobs/s; "
          f"ratio {med['on'] / med['off']:.3f}x (medians of {runs}, {n} jobs, {sampled:g} of traces sampled)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
