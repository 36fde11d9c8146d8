package echomq

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// seed enqueues perLane jobs on each of lanes lanes, payload "lane/i".
func seed(t *testing.T, q *Queue, lanes, perLane int) map[uint64]bool {
	t.Helper()
	ctx := ctxT(t)
	var batch []BatchJob
	for i := 0; i < perLane; i++ {
		for l := 0; l < lanes; l++ {
			batch = append(batch, BatchJob{Group: fmt.Sprintf("lane%02d", l), Payload: []byte(fmt.Sprintf("%d/%d", l, i))})
		}
	}
	ids := must(q.EnqueueBatch(ctx, batch))(t)
	want := make(map[uint64]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	return want
}

// counter records each processed job id and cancels when all are in.
type counter struct {
	mu     sync.Mutex
	seen   map[uint64]int
	want   int
	cancel context.CancelFunc
}

func (c *counter) record(id uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen[id]++
	if len(c.seen) == c.want && c.cancel != nil {
		c.cancel()
	}
}

func (c *counter) check(t *testing.T, want map[uint64]bool) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.seen) != len(want) {
		t.Fatalf("processed %d distinct jobs, want %d", len(c.seen), len(want))
	}
	for id, n := range c.seen {
		if !want[id] {
			t.Fatalf("processed unknown job %d", id)
		}
		if n != 1 {
			t.Fatalf("job %d processed %d times", id, n)
		}
	}
}

func TestWorkerProcessesEveryJobOnce(t *testing.T) {
	c := dial(t)
	q := newQueue(t, c)
	want := seed(t, q, 20, 100)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cnt := &counter{seen: map[uint64]int{}, want: len(want), cancel: cancel}
	var errs atomic.Int64
	w := &Worker{
		URL: serverURL, Queue: q.Name(), Concurrency: 8, Lease: 30 * time.Second,
		Handler: func(ctx context.Context, j *Job) error {
			cnt.record(j.ID)
			return nil
		},
		OnError: func(err error) { errs.Add(1); t.Logf("worker: %v", err) },
	}
	start := time.Now()
	mustOK(t, w.Run(ctx))
	if ctx.Err() == context.DeadlineExceeded {
		t.Fatal("worker did not finish in 60 s")
	}
	t.Logf("2000 jobs with 8 goroutines in %v", time.Since(start))
	cnt.check(t, want)
	st := must(q.Stats(ctxT(t)))(t)
	if st.AckedTotal != 2000 || st.Pending != 0 || st.Leased != 0 || st.Dead != 0 || st.ClaimedTotal != 2000 {
		t.Fatalf("stats: %+v", st)
	}
	if errs.Load() != 0 {
		t.Fatalf("%d worker errors", errs.Load())
	}
}

// Stopping a worker midway loses nothing: a second worker finishes the rest
// and every job is processed exactly once.
func TestWorkerStopAndRestart(t *testing.T) {
	c := dial(t)
	q := newQueue(t, c)
	want := seed(t, q, 10, 50)
	cnt := &counter{seen: map[uint64]int{}, want: len(want)}
	var processed atomic.Int64
	ctx1, stop1 := context.WithCancel(context.Background())
	handler := func(ctx context.Context, j *Job) error {
		time.Sleep(time.Millisecond)
		cnt.record(j.ID)
		if processed.Add(1) == 150 {
			stop1()
		}
		return nil
	}
	w := &Worker{URL: serverURL, Queue: q.Name(), Concurrency: 4, Lease: 2 * time.Second, Handler: handler}
	mustOK(t, w.Run(ctx1))
	if n := processed.Load(); n >= int64(len(want)) {
		t.Fatalf("first worker processed everything (%d): the stop was not tested", n)
	}
	st := must(q.Stats(ctxT(t)))(t)
	if st.Leased != 0 {
		// A blocking claim cut by the stop may hold one lease until it expires.
		t.Logf("%d leases left by the stop", st.Leased)
	}
	ctx2, stop2 := context.WithTimeout(context.Background(), 60*time.Second)
	defer stop2()
	cnt.mu.Lock()
	cnt.cancel = stop2
	done := len(cnt.seen) == cnt.want
	cnt.mu.Unlock()
	if !done {
		mustOK(t, w.Run(ctx2))
	}
	if ctx2.Err() == context.DeadlineExceeded {
		t.Fatal("second worker did not finish")
	}
	cnt.check(t, want)
}

// A handler error fails the job; it comes back and succeeds on retry. A
// panic counts as an error.
func TestWorkerRetriesFailures(t *testing.T) {
	c := dial(t)
	q := newQueue(t, c)
	want := seed(t, q, 4, 10)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var mu sync.Mutex
	attempts := map[uint64][]uint64{}
	okCount := 0
	w := &Worker{
		URL: serverURL, Queue: q.Name(), Concurrency: 3, Lease: 10 * time.Second,
		Handler: func(ctx context.Context, j *Job) error {
			mu.Lock()
			attempts[j.ID] = append(attempts[j.ID], j.Attempt)
			n := len(attempts[j.ID])
			mu.Unlock()
			switch {
			case n == 1 && j.ID%2 == 0:
				return errors.New("transient")
			case n == 1:
				panic("handler bug")
			}
			mu.Lock()
			okCount++
			if okCount == len(want) {
				cancel()
			}
			mu.Unlock()
			return nil
		},
	}
	start := time.Now()
	mustOK(t, w.Run(ctx))
	// Failures are settled at once: nothing waits for its 10 s lease.
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("took %v: a failed job waited for its lease to expire", took)
	}
	for id := range want {
		if got := attempts[id]; len(got) != 2 || got[0] != 1 || got[1] != 2 {
			t.Fatalf("job %d attempts %v, want [1 2]", id, got)
		}
	}
	if st := must(q.Stats(ctxT(t)))(t); st.FailedTotal != uint64(len(want)) || st.AckedTotal != uint64(len(want)) {
		t.Fatalf("stats: %+v", st)
	}
}

// A handler running longer than its lease keeps the job: the worker
// extends the lease, so no other goroutine gets it.
func TestWorkerExtendsLongLeases(t *testing.T) {
	c := dial(t)
	q := newQueue(t, c)
	must(q.Enqueue(ctxT(t), "slow", nil))(t)
	must(q.Enqueue(ctxT(t), "fast", nil))(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var calls, done atomic.Int64
	w := &Worker{
		URL: serverURL, Queue: q.Name(), Concurrency: 2, Lease: 300 * time.Millisecond,
		Handler: func(_ context.Context, j *Job) error {
			calls.Add(1)
			if j.Group == "slow" {
				time.Sleep(1200 * time.Millisecond) // four leases long
			}
			if done.Add(1) == 2 {
				cancel()
			}
			return nil
		},
		OnError: func(err error) { t.Errorf("worker: %v", err) },
	}
	mustOK(t, w.Run(ctx))
	if calls.Load() != 2 {
		t.Fatalf("handler called %d times for 2 jobs: a lease ran out", calls.Load())
	}
	if st := must(q.Stats(ctxT(t)))(t); st.AckedTotal != 2 || st.FailedTotal != 0 {
		t.Fatalf("stats: %+v", st)
	}
}

func TestWorkerFatalErrors(t *testing.T) {
	w := &Worker{URL: serverURL, Queue: "bad queue name", Handler: func(context.Context, *Job) error { return nil }}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.Run(ctx); !errors.Is(err, ErrInvalid) {
		t.Fatalf("worker on a bad queue name: %v, want ErrInvalid", err)
	}
	if err := (&Worker{URL: serverURL, Queue: "q"}).Run(ctx); !errors.Is(err, ErrInvalid) {
		t.Fatalf("worker without handler: %v", err)
	}
}

// With Batch > 1 the worker claims weighted turns: lanes of weight 1:2:3
// get 1:2:3 of the service while all are backlogged.
func TestWorkerBatchAppliesWeights(t *testing.T) {
	c := dial(t)
	q := newQueue(t, c)
	bg := ctxT(t)
	weights := map[string]uint32{"w1": 1, "w2": 2, "w3": 3}
	for g, w := range weights {
		mustOK(t, q.Weight(bg, g, w))
	}
	var batch []BatchJob
	for i := 0; i < 60; i++ {
		for _, g := range []string{"w1", "w2", "w3"} {
			batch = append(batch, BatchJob{Group: g})
		}
	}
	must(q.EnqueueBatch(bg, batch))(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var mu sync.Mutex
	var order []string
	w := &Worker{
		URL: serverURL, Queue: q.Name(), Concurrency: 1, Batch: 10, Lease: 10 * time.Second,
		Handler: func(_ context.Context, j *Job) error {
			mu.Lock()
			defer mu.Unlock()
			order = append(order, j.Group)
			if len(order) == len(batch) {
				cancel()
			}
			return nil
		},
		OnError: func(err error) { t.Errorf("worker: %v", err) },
	}
	mustOK(t, w.Run(ctx))
	first := map[string]int{}
	for _, g := range order[:60] { // ten full turns of 1+2+3
		first[g]++
	}
	if first["w1"] != 10 || first["w2"] != 20 || first["w3"] != 30 {
		t.Fatalf("first 60 jobs served %v, want w1:10 w2:20 w3:30", first)
	}
	if len(order) != len(batch) {
		t.Fatalf("processed %d of %d", len(order), len(batch))
	}
}
