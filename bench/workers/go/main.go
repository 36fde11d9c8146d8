// Command workerbench drains N jobs through the Go Worker with a no-op
// handler; for bench/workers/run.sh.
//
//	workerbench URL QUEUE N CONCURRENCY   -> prints "jobs_per_s <rate>"
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/echomq/echomq/bindings/go/echomq"
)

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: workerbench URL QUEUE N CONCURRENCY")
		os.Exit(2)
	}
	total, _ := strconv.ParseInt(os.Args[3], 10, 64)
	conc, _ := strconv.Atoi(os.Args[4])
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var count atomic.Int64
	w := &echomq.Worker{
		URL: os.Args[1], Queue: os.Args[2], Concurrency: conc,
		Handler: func(context.Context, *echomq.Job) error {
			if count.Add(1) == total {
				cancel() // the stop's drain settles the last acks, as in the C and Python runs
			}
			return nil
		},
	}
	t0 := time.Now()
	if err := w.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	secs := time.Since(t0).Seconds()
	fmt.Printf("jobs_per_s %.0f\n", float64(total)/secs)
}
