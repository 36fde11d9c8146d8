// Package layer is what the benchmarks of a layer over the Go Worker share
// (tasks: the Mux; tracing): their arguments, one drain, the median.
package layer

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

// Args reads "URL [N=20000] [RUNS=3]" from the command line (usage names
// the command when URL is missing).
func Args(usage string) (url string, n, runs int) {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: "+usage+" URL [N] [RUNS]")
		os.Exit(2)
	}
	url, n, runs = os.Args[1], 20000, 3
	if len(os.Args) > 2 {
		n, _ = strconv.Atoi(os.Args[2])
	}
	if len(os.Args) > 3 {
		runs, _ = strconv.Atoi(os.Args[3])
	}
	return url, n, runs
}

// Drain runs a Worker of 8 goroutines over queue until total jobs have run
// and returns jobs/s. handler gets the done func each job's handler calls.
func Drain(url, queue string, total int64, handler func(done func()) echomq.Handler) float64 {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var count atomic.Int64
	done := func() {
		if count.Add(1) == total {
			cancel() // the stop's drain settles the last acks
		}
	}
	w := &echomq.Worker{URL: url, Queue: queue, Concurrency: 8, Handler: handler(done)}
	t0 := time.Now()
	if err := w.Run(ctx); err != nil {
		Fail(err)
	}
	return float64(total) / time.Since(t0).Seconds()
}

// Median of v (sorts v).
func Median(v []float64) float64 {
	sort.Float64s(v)
	return v[len(v)/2]
}

// Fail prints err and exits 1.
func Fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
