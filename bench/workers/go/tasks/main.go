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
	"os"
	"sort"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/echomq/echomq/bindings/go/echomq"
)

type noop struct {
	I int `json:"i"`
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: tasksbench URL [N] [RUNS]")
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
					fail(err)
				}
			}
			rates[kind] = append(rates[kind], drain(url, q.Name(), kind, int64(n)))
		}
	}
	raw, mux := median(rates["raw"]), median(rates["mux"])
	fmt.Printf("raw Worker %.0f jobs/s; Mux %.0f jobs/s; ratio %.3fx (medians of %d, %d jobs)\n", raw, mux, mux/raw, runs, n)
}

func drain(url, queue, kind string, total int64) float64 {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var count atomic.Int64
	done := func() {
		if count.Add(1) == total {
			cancel() // the stop's drain settles the last acks
		}
	}
	h := echomq.Handler(func(context.Context, *echomq.Job) error { done(); return nil })
	if kind == "mux" {
		m := echomq.NewMux()
		echomq.HandleJSON(m, "noop", func(_ context.Context, _ *echomq.Job, _ noop) error { done(); return nil })
		h = m.ProcessJob
	}
	w := &echomq.Worker{URL: url, Queue: queue, Concurrency: 8, Handler: h}
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
