// Command fanin is a small service that fans in work from many tenants: one
// lane per tenant, one tenant with a weight of 3, and one noisy tenant that
// keeps a backlog ten times deeper than the others. A Worker drains the
// queue, and every interval the program prints each tenant's share of the
// service: the noisy tenant gets no more than anyone else, the weighted one
// three times as much.
//
//	go run . -url valkey://127.0.0.1:6379
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/echomq/echomq/bindings/go/echomq"
)

type tenant struct {
	name   string
	weight uint32
	depth  uint64 // backlog its producer keeps topped up
}

func main() {
	url := flag.String("url", os.Getenv("ECHOMQ_URL"), "server URL (default $ECHOMQ_URL)")
	duration := flag.Duration("duration", 5*time.Second, "how long to run")
	interval := flag.Duration("interval", time.Second, "how often to print the shares")
	workers := flag.Int("workers", 4, "worker goroutines")
	work := flag.Duration("work", time.Millisecond, "simulated work per job")
	flag.Parse()
	if *url == "" {
		log.Fatal("fanin: give -url or set ECHOMQ_URL")
	}

	tenants := []tenant{{"noisy", 1, 3000}, {"gold", 3, 300}}
	for i := 1; i <= 6; i++ {
		tenants = append(tenants, tenant{fmt.Sprintf("t%d", i), 1, 300})
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *duration)
	defer cancel()

	queue := fmt.Sprintf("example.fanin.%d", os.Getpid())
	admin, err := echomq.Dial(ctx, *url)
	if err != nil {
		log.Fatalf("fanin: %v", err)
	}
	defer admin.Close()
	q := admin.Queue(queue)
	for _, t := range tenants {
		if err := q.Weight(ctx, t.name, t.weight); err != nil {
			log.Fatalf("fanin: weight %s: %v", t.name, err)
		}
	}

	var wg sync.WaitGroup
	for _, t := range tenants {
		wg.Add(1)
		go func(t tenant) {
			defer wg.Done()
			if err := produce(ctx, *url, queue, t); err != nil && ctx.Err() == nil {
				log.Printf("fanin: producer %s: %v", t.name, err)
			}
		}(t)
	}

	served := newTally()
	w := &echomq.Worker{
		URL: *url, Queue: queue, Concurrency: *workers, Weighted: true, Prefetch: 10, Lease: 10 * time.Second,
		Handler: func(_ context.Context, j *echomq.Job) error {
			time.Sleep(*work) // the "work"
			served.add(j.Group)
			return nil
		},
		OnError: func(err error) { log.Printf("fanin: worker: %v", err) },
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := w.Run(ctx); err != nil {
			log.Printf("fanin: worker stopped: %v", err)
		}
	}()

	report(ctx, served, tenants, *interval)
	wg.Wait()
	total := served.take()
	fmt.Println()
	fmt.Println("whole run:")
	printRow(os.Stdout, "total", total, tenants)
	var weights uint32
	for _, t := range tenants {
		weights += t.weight
	}
	fmt.Printf("expected while all lanes are backlogged: %s\n", expected(tenants, weights))

	bg := context.Background()
	if lanes, _, err := q.Lanes(bg, "", 100); err == nil {
		var parts []string
		for _, l := range lanes {
			parts = append(parts, fmt.Sprintf("%s %d", l.Group, l.Depth))
		}
		fmt.Printf("backlog left per tenant: %s\n", strings.Join(parts, ", "))
	}
	if violations, err := q.Verify(bg); err != nil {
		log.Printf("fanin: verify: %v", err)
	} else if len(violations) > 0 {
		log.Printf("fanin: verify: %s", strings.Join(violations, "; "))
	} else {
		fmt.Println("verify: no violation")
	}
}

// produce keeps the tenant's lane topped up to t.depth pending jobs.
func produce(ctx context.Context, url, queue string, t tenant) error {
	c, err := echomq.Dial(ctx, url)
	if err != nil {
		return err
	}
	defer c.Close()
	q := c.Queue(queue)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for seq := 0; ; {
		lane, err := q.Lane(ctx, t.name)
		if err != nil {
			return err
		}
		if lane.Depth < t.depth {
			jobs := make([]echomq.BatchJob, t.depth-lane.Depth)
			for i := range jobs {
				seq++
				jobs[i] = echomq.BatchJob{Group: t.name, Payload: []byte(fmt.Sprintf("%s-%d", t.name, seq))}
			}
			if _, err := q.EnqueueBatch(ctx, jobs); err != nil {
				return err
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// tally counts jobs served per tenant.
type tally struct {
	mu sync.Mutex
	n  map[string]int
}

func newTally() *tally { return &tally{n: map[string]int{}} }

func (t *tally) add(g string) {
	t.mu.Lock()
	t.n[g]++
	t.mu.Unlock()
}

// take returns the counts so far and starts a new window.
func (t *tally) take() map[string]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := t.n
	t.n = map[string]int{}
	return n
}

// report prints each tenant's share of the service every interval.
func report(ctx context.Context, served *tally, tenants []tenant, interval time.Duration) {
	header := fmt.Sprintf("%6s %7s", "time", "served")
	for _, t := range tenants {
		header += fmt.Sprintf(" %7s", t.name)
	}
	fmt.Println(header)
	start := time.Now()
	all := map[string]int{}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			served.mu.Lock()
			for g, n := range all {
				served.n[g] += n // hand the whole run back for the summary
			}
			served.mu.Unlock()
			return
		case <-tick.C:
		}
		window := served.take()
		for g, n := range window {
			all[g] += n
		}
		printRow(os.Stdout, time.Since(start).Round(time.Second).String(), window, tenants)
	}
}

func printRow(out *os.File, label string, counts map[string]int, tenants []tenant) {
	total := 0
	for _, n := range counts {
		total += n
	}
	row := fmt.Sprintf("%6s %7d", label, total)
	for _, t := range tenants {
		share := 0.0
		if total > 0 {
			share = 100 * float64(counts[t.name]) / float64(total)
		}
		row += fmt.Sprintf(" %6.1f%%", share)
	}
	fmt.Fprintln(out, row)
}

func expected(tenants []tenant, weights uint32) string {
	var parts []string
	for _, t := range tenants {
		parts = append(parts, fmt.Sprintf("%s %.1f%%", t.name, 100*float64(t.weight)/float64(weights)))
	}
	return strings.Join(parts, ", ")
}
