// Command tracingbench drains the same named jobs through a Mux with
// OpenTelemetry tracing off and on (bindings/go/otel: the jobs enqueued in
// PRODUCER spans, their context in the headers, each handler in a CONSUMER
// span; the SDK's TracerProvider samples every span into a batch processor
// whose exporter drops them), alternating, and prints the medians and their
// ratio (target >= 0.8x).
//
//	tracingbench URL [N=20000] [RUNS=3]
package main

import (
	"context"
	"fmt"
	"time"

	"github.com/echomq/echomq/bench/workers/go/internal/layer"
	"github.com/echomq/echomq/bindings/go/echomq"
	echomqotel "github.com/echomq/echomq/bindings/go/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

type noop struct {
	I int `json:"i"`
}

func main() {
	url, n, runs := layer.Args("tracingbench")
	ctx := context.Background()
	c, err := echomq.Dial(ctx, url)
	if err != nil {
		layer.Fail(err)
	}
	defer c.Close()
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	defer tp.Shutdown(ctx)
	tr := echomqotel.New(echomqotel.WithTracerProvider(tp))
	rates := map[string][]float64{}
	for r := 0; r < runs; r++ {
		for _, kind := range []string{"off", "on"} {
			q := c.Queue(fmt.Sprintf("bench-tracing-%s-%d-%d", kind, r, time.Now().UnixNano()))
			for i := 0; i < n; i++ {
				lane, v := fmt.Sprintf("l%d", i%100), noop{i}
				if kind == "on" {
					_, err = echomqotel.EnqueueJSON(ctx, tr, q, "noop", lane, v)
				} else {
					_, err = echomq.EnqueueJSON(ctx, q, "noop", lane, v)
				}
				if err != nil {
					layer.Fail(err)
				}
			}
			rates[kind] = append(rates[kind], layer.Drain(url, q.Name(), int64(n), func(done func()) echomq.Handler {
				m := echomq.NewMux()
				if kind == "on" {
					m.Use(tr.Middleware)
				}
				echomq.HandleJSON(m, "noop", func(_ context.Context, _ *echomq.Job, _ noop) error { done(); return nil })
				return m.ProcessJob
			}))
		}
	}
	off, on := layer.Median(rates["off"]), layer.Median(rates["on"])
	fmt.Printf("tracing off %.0f jobs/s; tracing on %.0f jobs/s; ratio %.3fx (medians of %d, %d jobs)\n",
		off, on, on/off, runs, n)
}
