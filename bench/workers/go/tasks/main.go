// Command tasksbench drains the same jobs with the Go Worker's no-op Handler
// and with a Mux that dispatches them by name to a typed JSON handler
// (HandleJSON), alternating, and prints the medians and their ratio
// (target >= 0.9x).
//
//	tasksbench URL [N=20000] [RUNS=3]
package main

import (
	"context"
	"fmt"
	"time"

	"github.com/echomq/echomq/bench/workers/go/internal/layer"
	"github.com/echomq/echomq/bindings/go/echomq"
)

type noop struct {
	I int `json:"i"`
}

func main() {
	url, n, runs := layer.Args("tasksbench")
	ctx := context.Background()
	c, err := echomq.Dial(ctx, url)
	if err != nil {
		layer.Fail(err)
	}
	defer c.Close()
	rates := map[string][]float64{}
	for r := 0; r < runs; r++ {
		for _, kind := range []string{"raw", "mux"} {
			q := c.Queue(fmt.Sprintf("bench-mux-%s-%d-%d", kind, r, time.Now().UnixNano()))
			for s := 0; s < n; s += 1000 {
				jobs := make([]echomq.BatchJob, 0, 1000)
				for i := s; i < s+1000 && i < n; i++ {
					jobs = append(jobs, echomq.BatchJob{Group: fmt.Sprintf("l%d", i%100), Payload: []byte(fmt.Sprintf(`{"i":%d}`, i))})
				}
				if _, err := q.EnqueueBatch(ctx, jobs, echomq.WithName("noop")); err != nil {
					layer.Fail(err)
				}
			}
			rates[kind] = append(rates[kind], layer.Drain(url, q.Name(), int64(n), func(done func()) echomq.Handler {
				if kind == "raw" {
					return func(context.Context, *echomq.Job) error { done(); return nil }
				}
				m := echomq.NewMux()
				echomq.HandleJSON(m, "noop", func(_ context.Context, _ *echomq.Job, _ noop) error { done(); return nil })
				return m.ProcessJob
			}))
		}
	}
	raw, mux := layer.Median(rates["raw"]), layer.Median(rates["mux"])
	fmt.Printf("raw Worker %.0f jobs/s; Mux %.0f jobs/s; ratio %.3fx (medians of %d, %d jobs)\n", raw, mux, mux/raw, runs, n)
}
