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
	"os"
	"sort"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/echomq/echomq/bindings/go/echomq"
	echomqotel "github.com/echomq/echomq/bindings/go/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

type noop struct {
	I int `json:"i"`
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: tracingbench URL [N] [RUNS]")
		os.Exit(2)
	}
	url, n, runs := os.Args[1], 20000, 3
	if len(os.Args) > 2 {
		n, _ = strconv.Atoi(os.Args[2])
	}
	if len(os.Args) > 3 {
		runs, _ = strconv.Atoi(os.Args[3])
	}
	ctx := context.Background()
	c, err := echomq.Dial(ctx, url)
	if err != nil {
		fail(err)
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
					fail(err)
				}
			}
			var t *echomqotel.Tracing
			if kind == "on" {
				t = tr
			}
			rates[kind] = append(rates[kind], drain(url, q.Name(), t, int64(n)))
		}
	}
	off, on := median(rates["off"]), median(rates["on"])
	fmt.Printf("tracing off %.0f jobs/s; tracing on %.0f jobs/s; ratio %.3fx (medians of %d, %d jobs)\n",
		off, on, on/off, runs, n)
}

func drain(url, queue string, tr *echomqotel.Tracing, total int64) float64 {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var count atomic.Int64
	m := echomq.NewMux()
	if tr != nil {
		m.Use(tr.Middleware)
	}
	echomq.HandleJSON(m, "noop", func(_ context.Context, _ *echomq.Job, _ noop) error {
		if count.Add(1) == total {
			cancel() // the stop's drain settles the last acks
		}
		return nil
	})
	w := &echomq.Worker{URL: url, Queue: queue, Concurrency: 8, Handler: m.ProcessJob}
	t0 := time.Now()
	if err := w.Run(ctx); err != nil {
		fail(err)
	}
	return float64(total) / time.Since(t0).Seconds()
}

func median(v []float64) float64 {
	sort.Float64s(v)
	return v[len(v)/2]
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
