package echomq

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/echomq/echomq/bindings/go/internal/capi"
)

// A handler error wrapped by Discard dead-letters the job at once, with
// attempts left; a wrapped discard is still a discard.
func TestWorkerDiscardDeadLettersAtOnce(t *testing.T) {
	c := dial(t)
	q := newQueue(t, c)
	bg := ctxT(t)
	must(q.Enqueue(bg, "a", []byte("hopeless"), WithMaxAttempts(5)))(t)
	must(q.Enqueue(bg, "b", []byte("wrapped"), WithMaxAttempts(5)))(t)
	must(q.Enqueue(bg, "c", []byte("fine"), WithMaxAttempts(5)))(t)
	var calls atomic.Int64
	w := &Worker{
		URL: serverURL, Queue: q.Name(), Concurrency: 2, IdleTimeout: 500 * time.Millisecond,
		Handler: func(_ context.Context, j *Job) error {
			calls.Add(1)
			switch string(j.Payload) {
			case "hopeless":
				return Discard(errors.New("bad input: cannot parse"))
			case "wrapped":
				return fmt.Errorf("scoring: %w", Discard(errors.New("no such player")))
			}
			// The engine settles the job: its queue has a name but no client.
			if j.Queue().Name() != q.Name() || !errors.Is(j.Ack(context.Background()), ErrClosed) {
				t.Errorf("a worker's job settled outside the engine")
			}
			return nil
		},
		OnError: func(err error) { t.Errorf("worker: %v", err) },
	}
	mustOK(t, w.Run(ctxT(t)))
	if calls.Load() != 3 {
		t.Fatalf("handler called %d times for 3 jobs: a discarded job was retried", calls.Load())
	}
	st := w.Stats()
	if st.Acked != 1 || st.Failed != 2 || st.Discarded != 2 || st.Dead != 2 || st.Retried != 0 {
		t.Fatalf("stats %+v", st)
	}
	dead := must(q.Dead(bg, 0, 10))(t)
	reasons := map[string]string{}
	for _, j := range dead {
		if j.Attempt != 1 {
			t.Fatalf("dead job %d used %d attempts, want 1", j.ID, j.Attempt)
		}
		reasons[string(j.Payload)] = j.LastError
	}
	if reasons["hopeless"] != "bad input: cannot parse" || reasons["wrapped"] != "scoring: no such player" {
		t.Fatalf("dead reasons %q", reasons)
	}
	if qs := must(q.Stats(bg))(t); qs.Pending != 0 || qs.Leased != 0 || qs.Delayed != 0 || qs.Dead != 2 {
		t.Fatalf("queue stats %+v", qs)
	}
}

func TestDiscardMatching(t *testing.T) {
	base := errors.New("why")
	err := fmt.Errorf("ctx: %w", Discard(base))
	var de *DiscardError
	if !errors.Is(err, ErrDiscard) || !errors.As(err, &de) || !errors.Is(err, base) {
		t.Fatal("a wrapped discard matches ErrDiscard, *DiscardError and its reason")
	}
	if errors.Is(base, ErrDiscard) {
		t.Fatal("a plain error is no discard")
	}
}

// Cancelling Run's context gives the prefetched, unstarted jobs back to
// their lanes at once (not after their lease) and lets the running one
// finish and be acked.
func TestWorkerStopGivesPrefetchedJobsBackAtOnce(t *testing.T) {
	c := dial(t)
	q := newQueue(t, c)
	bg := ctxT(t)
	for i := 0; i < 20; i++ {
		must(q.Enqueue(bg, fmt.Sprintf("L%d", i%4), nil))(t)
	}
	started := make(chan struct{}, 1)
	gate := make(chan struct{})
	w := &Worker{
		URL: serverURL, Queue: q.Name(), Concurrency: 1, Prefetch: 7, Lease: time.Minute,
		TargetWait: FixedPrefetch, // every free slot is filled
		Handler: func(_ context.Context, j *Job) error {
			select {
			case started <- struct{}{}:
			default:
			}
			<-gate
			return nil
		},
		OnError: func(err error) { t.Errorf("worker: %v", err) },
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	<-started
	deadline := time.Now().Add(5 * time.Second)
	for must(q.Stats(bg))(t).Leased != 8 {
		if time.Now().After(deadline) {
			t.Fatal("the engine did not fill its 8 slots")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if st := w.Stats(); st.Buffered != 7 || st.Running != 1 {
		t.Fatalf("stats while running %+v", st)
	}
	cancel()
	time.AfterFunc(300*time.Millisecond, func() { close(gate) })
	t0 := time.Now()
	select {
	case err := <-done:
		mustOK(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after the drain")
	}
	if took := time.Since(t0); took > 5*time.Second {
		t.Fatalf("the stop took %v", took)
	}
	qs := must(q.Stats(bg))(t)
	if qs.Leased != 0 || qs.Pending != 19 || qs.AckedTotal != 1 {
		t.Fatalf("after the stop: %+v (the unstarted jobs must be back at once, not after the 1 min lease)", qs)
	}
	if st := w.Stats(); st.Acked != 1 || st.Released != 7 || st.Running != 0 || st.Buffered != 0 {
		t.Fatalf("final stats %+v", st)
	}
}

// A drain that times out cancels the handlers' context with
// ErrDrainTimeout and returns; the job comes back by its lease.
func TestWorkerDrainTimeoutCancelsHandlers(t *testing.T) {
	c := dial(t)
	q := newQueue(t, c)
	bg := ctxT(t)
	id := must(q.Enqueue(bg, "a", nil))(t)
	started := make(chan struct{})
	var cause atomic.Value
	var errs atomic.Int64
	w := &Worker{
		URL: serverURL, Queue: q.Name(), Concurrency: 1, Lease: 500 * time.Millisecond,
		DrainTimeout: 200 * time.Millisecond,
		Handler: func(ctx context.Context, j *Job) error {
			close(started)
			<-ctx.Done()
			cause.Store(context.Cause(ctx))
			return ctx.Err()
		},
		OnError: func(error) { errs.Add(1) },
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	<-started
	cancel()
	select {
	case err := <-done:
		mustOK(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after the drain timeout")
	}
	deadline := time.Now().Add(5 * time.Second)
	for cause.Load() == nil && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got, _ := cause.Load().(error); !errors.Is(got, ErrDrainTimeout) {
		t.Fatalf("handler context cause %v, want ErrDrainTimeout", got)
	}
	if errs.Load() == 0 {
		t.Fatal("OnError did not hear of the job left running")
	}
	j := must(q.BClaim(bg, time.Second))(t) // back after its lease
	if j.ID != id || j.Attempt != 2 {
		t.Fatalf("claimed %d attempt %d", j.ID, j.Attempt)
	}
	mustOK(t, j.Ack(bg))
}

// The Go and Python Workers share one set of defaults, and the engine's
// lease, retry policy and idle wait are theirs.
func TestWorkerDefaults(t *testing.T) {
	if DefaultConcurrency != 4 || DefaultLease != 30*time.Second || DefaultDrainTimeout != 30*time.Second {
		t.Fatal("the documented defaults changed: change the Python Worker's too")
	}
	eng := make([]int64, capi.EMQGO_WOPT_NUMS)
	capi.Worker_defaults(eng)
	w := &Worker{URL: serverURL, Queue: "q", Handler: func(context.Context, *Job) error { return nil }}
	cfg, err := w.config()
	mustOK(t, err)
	if cfg.concurrency != 4 || cfg.drain != 30*time.Second {
		t.Fatalf("config %+v", cfg)
	}
	for _, i := range []int{capi.EMQGO_WOPT_SLOTS, capi.EMQGO_WOPT_PREFETCH, capi.EMQGO_WOPT_LEASE_MS,
		capi.EMQGO_WOPT_WEIGHTED, capi.EMQGO_WOPT_RETRY_DELAY_MS, capi.EMQGO_WOPT_IDLE_WAIT_MS,
		capi.EMQGO_WOPT_CONNECT_TIMEOUT_MS, capi.EMQGO_WOPT_COMMAND_TIMEOUT_MS} {
		if cfg.nums[i] != eng[i] {
			t.Errorf("option %d: Worker default %d, engine default %d", i, cfg.nums[i], eng[i])
		}
	}
	if eng[capi.EMQGO_WOPT_RETRY_DELAY_MS] != int64(capi.ECHOMQ_RETRY_BACKOFF) || eng[capi.EMQGO_WOPT_SLOTS] != 8 {
		t.Fatalf("engine defaults %v", eng)
	}
}

func TestWorkerBadSettingsRefusedBeforeIO(t *testing.T) {
	h := func(context.Context, *Job) error { return nil }
	ctx := ctxT(t)
	for name, w := range map[string]*Worker{
		"slots below concurrency": {URL: "valkey://127.0.0.1:1", Queue: "q", Handler: h, Concurrency: 4, Slots: 2},
		"negative prefetch":       {URL: "valkey://127.0.0.1:1", Queue: "q", Handler: h, Prefetch: -5},
		"negative target wait":    {URL: "valkey://127.0.0.1:1", Queue: "q", Handler: h, TargetWait: -5 * time.Millisecond},
		"target wait too long":    {URL: "valkey://127.0.0.1:1", Queue: "q", Handler: h, TargetWait: time.Hour},
		"too many slots":          {URL: "valkey://127.0.0.1:1", Queue: "q", Handler: h, Prefetch: 10000},
		"negative retry":          {URL: "valkey://127.0.0.1:1", Queue: "q", Handler: h, RetryIn: -time.Second},
		"bad URL":                 {URL: "http://nowhere", Queue: "q", Handler: h},
	} {
		if err := w.Run(ctx); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
	if n := live.workers.Load(); n != 0 {
		t.Fatalf("%d engine handles left", n)
	}
}

// When the server goes away, the engine's failed calls reach OnError.
func TestWorkerOnErrorWhenTheServerGoesAway(t *testing.T) {
	script, err := filepath.Abs("../../../tests/valkey-server.sh")
	mustOK(t, err)
	dir := filepath.Join(t.TempDir(), "server")
	out, err := exec.Command("bash", script, "start", dir).Output()
	mustOK(t, err)
	stopped := false
	defer func() {
		if !stopped {
			exec.Command("bash", script, "stop", dir).Run()
		}
	}()
	url := strings.TrimSpace(string(out))
	c, err := Dial(context.Background(), url)
	mustOK(t, err)
	defer c.Close()
	must(c.Queue("gone").Enqueue(ctxT(t), "a", nil))(t)
	var mu sync.Mutex
	var errs []error
	handled := make(chan struct{}, 1)
	w := &Worker{
		URL: url, Queue: "gone", Concurrency: 1, DrainTimeout: time.Second,
		DialOptions: []DialOption{WithCommandTimeout(500 * time.Millisecond), WithConnectTimeout(500 * time.Millisecond)},
		Handler: func(context.Context, *Job) error {
			handled <- struct{}{}
			return nil
		},
		OnError: func(err error) {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		},
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	<-handled
	time.Sleep(100 * time.Millisecond) // the ack goes through first
	if err := exec.Command("bash", script, "stop", dir).Run(); err != nil {
		t.Fatal(err)
	}
	stopped = true
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(errs)
		mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no error reported after the server went away")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	mustOK(t, <-done)
	mu.Lock()
	first := errs[0]
	mu.Unlock()
	if !errors.Is(first, ErrConnection) && !errors.Is(first, ErrTimeout) {
		t.Fatalf("first error %v, want a connection error or timeout", first)
	}
	if w.Stats().Errors == 0 {
		t.Fatal("the engine counted no error")
	}
	_ = os.Remove(dir)
}

func TestClaimBatchServesTurns(t *testing.T) {
	c := dial(t)
	q := newQueue(t, c)
	bg := ctxT(t)
	for i := 0; i < 3; i++ {
		for _, g := range []string{"a", "b"} {
			must(q.Enqueue(bg, g, []byte(fmt.Sprintf("%s%d", g, i))))(t)
		}
	}
	jobs := must(q.ClaimBatch(bg, 10*time.Second, 4, false))(t)
	var got []string
	for _, j := range jobs {
		got = append(got, string(j.Payload))
	}
	if strings.Join(got, " ") != "a0 b0 a1 b1" {
		t.Fatalf("batch served %v", got)
	}
	mustOK(t, q.Weight(bg, "a", 2))
	rest := must(q.ClaimBatch(bg, 10*time.Second, 10, true))(t)
	if len(rest) != 2 {
		t.Fatalf("weighted batch served %d", len(rest))
	}
	if _, err := q.ClaimBatch(bg, time.Second, 5, false); !errors.Is(err, ErrEmpty) {
		t.Fatalf("empty queue: %v", err)
	}
	if _, err := q.ClaimBatch(bg, time.Second, 10001, false); !errors.Is(err, ErrInvalid) {
		t.Fatalf("n over the limit: %v", err)
	}
	refused := must(q.AckMany(bg, append(jobs, rest...)))(t)
	if len(refused) != 0 {
		t.Fatalf("%d acks refused", len(refused))
	}
}

func TestLayoutErrorForAnOldQueue(t *testing.T) {
	c := dial(t)
	r := dialRaw(t)
	name := fmt.Sprintf("go.old-layout.%d", time.Now().UnixNano())
	r.do(t, "SET", "emq:{"+name+"}:seq", "7") // a queue written without the layout mark
	defer r.do(t, "DEL", "emq:{"+name+"}:seq")
	_, err := c.Queue(name).Claim(ctxT(t), time.Second)
	var e *Error
	if !errors.Is(err, ErrLayout) || !errors.As(err, &e) || !strings.Contains(e.Msg, "layout") {
		t.Fatalf("claim on an old queue: %v, want ErrLayout", err)
	}
}

// The default TargetWait keeps about one job ahead of slow handlers, where
// FixedPrefetch fills every slot: the option reaches the engine.
func TestWorkerTargetWaitBoundsWhatIsHeldAheadOfSlowHandlers(t *testing.T) {
	for _, fixed := range []bool{false, true} {
		c := dial(t)
		q := newQueue(t, c)
		bg := ctxT(t)
		jobs := make([]BatchJob, 200)
		for i := range jobs {
			jobs[i] = BatchJob{Group: "heavy"}
		}
		must(q.EnqueueBatch(bg, jobs))(t)
		var n atomic.Int64
		enough := make(chan struct{})
		// Two handlers of 40 ms start a job every 20 ms: a 5 ms target keeps
		// one job ahead of them.
		w := &Worker{URL: serverURL, Queue: q.Name(), Concurrency: 2, Prefetch: 30,
			Handler: func(context.Context, *Job) error {
				time.Sleep(40 * time.Millisecond)
				if n.Add(1) == 12 {
					close(enough)
				}
				return nil
			}}
		if fixed {
			w.TargetWait = FixedPrefetch
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- w.Run(ctx) }()
		select {
		case <-enough:
		case <-time.After(20 * time.Second):
			t.Fatal("the handlers did not run 12 jobs")
		}
		leased := must(q.Stats(bg))(t).Leased
		cancel()
		mustOK(t, <-done)
		if !fixed && leased > 6 {
			t.Errorf("latency-bounded: %d jobs held behind 40 ms handlers, want at most 6", leased)
		}
		if fixed && leased < 30 {
			t.Errorf("fixed prefetch: %d jobs held, want its 32 slots", leased)
		}
	}
}
