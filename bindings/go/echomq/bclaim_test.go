package echomq

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func TestBClaimWakesOnEnqueue(t *testing.T) {
	ctx := ctxT(t)
	c := dial(t)
	q := newQueue(t, c)
	producer := dial(t).Queue(q.Name())
	got := make(chan *Job, 1)
	errc := make(chan error, 1)
	go func() {
		j, err := q.BClaim(ctx, time.Minute)
		got <- j
		errc <- err
	}()
	time.Sleep(200 * time.Millisecond)
	sent := time.Now()
	must(producer.Enqueue(ctx, "g", []byte("wake")))(t)
	j := <-got
	mustOK(t, <-errc)
	if lag := time.Since(sent); lag > 500*time.Millisecond {
		t.Fatalf("blocked claim woke %v after the enqueue", lag)
	}
	if string(j.Payload) != "wake" {
		t.Fatalf("payload %q", j.Payload)
	}
	mustOK(t, j.Ack(ctx))
}

// Cancelling the context interrupts a blocking claim from another
// goroutine promptly (well under the 1 s slice), and the client works on.
func TestBClaimHonoursCancel(t *testing.T) {
	c := dial(t)
	q := newQueue(t, c)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	j, err := q.BClaim(ctx, time.Minute)
	took := time.Since(start)
	if j != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("BClaim after cancel: %v, %v; want context.Canceled", j, err)
	}
	if took < 250*time.Millisecond || took > 800*time.Millisecond {
		t.Fatalf("BClaim returned after %v, want about 300 ms", took)
	}
	// The connection is re-established by the next call.
	bg := ctxT(t)
	must(q.Enqueue(bg, "g", nil))(t)
	mustOK(t, must(q.Claim(bg, time.Minute))(t).Ack(bg))
}

func TestBClaimHonoursDeadline(t *testing.T) {
	q := newQueue(t, dial(t))
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := q.BClaim(ctx, time.Minute)
	took := time.Since(start)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("BClaim past its deadline: %v", err)
	}
	if took < 1400*time.Millisecond || took > 2500*time.Millisecond {
		t.Fatalf("BClaim returned after %v, want about 1.5 s", took)
	}
}

func TestCancelledContextSendsNothing(t *testing.T) {
	q := newQueue(t, dial(t))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := q.Enqueue(ctx, "g", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("enqueue with a done context: %v", err)
	}
	if st := must(q.Stats(ctxT(t)))(t); st.EnqueuedTotal != 0 {
		t.Fatalf("a job was enqueued: %+v", st)
	}
}

func TestCloseInterruptsBClaim(t *testing.T) {
	c, err := Dial(context.Background(), serverURL)
	mustOK(t, err)
	q := newQueue(t, c)
	done := make(chan error, 1)
	go func() {
		_, err := q.BClaim(context.Background(), time.Minute)
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	mustOK(t, c.Close())
	if took := time.Since(start); took > 1500*time.Millisecond {
		t.Fatalf("Close took %v", took)
	}
	if err := <-done; !errors.Is(err, ErrCanceled) && !errors.Is(err, ErrClosed) {
		t.Fatalf("BClaim during Close: %v", err)
	}
	if _, err := q.Claim(context.Background(), time.Second); !errors.Is(err, ErrClosed) {
		t.Fatalf("claim after Close: %v, want ErrClosed", err)
	}
	mustOK(t, c.Close()) // idempotent
}

// One client shared by many goroutines: the mutex serialises the calls.
func TestSharedClient(t *testing.T) {
	ctx := ctxT(t)
	c := dial(t)
	q := newQueue(t, c)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				if _, err := q.Enqueue(ctx, string(rune('a'+g)), []byte{byte(i)}); err != nil {
					t.Error(err)
					return
				}
				j, err := q.Claim(ctx, time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				if err := j.Ack(ctx); err != nil {
					t.Error(err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	if st := must(q.Stats(ctx))(t); st.AckedTotal != 400 || st.Pending != 0 || st.Leased != 0 {
		t.Fatalf("stats: %+v", st)
	}
}

// missedCancel is a context whose end no watcher can see (Done is nil), so
// the cancellation of a blocking claim in progress is missed: only the
// bounded waits notice it, at most BClaimSlice later.
type missedCancel struct {
	context.Context
	at time.Time
}

func (m missedCancel) Done() <-chan struct{} { return nil }

func (m missedCancel) Err() error {
	if time.Now().After(m.at) {
		return context.Canceled
	}
	return nil
}

func TestBClaimBoundsAMissedCancel(t *testing.T) {
	q := newQueue(t, dial(t))
	ctx := missedCancel{Context: context.Background(), at: time.Now().Add(300 * time.Millisecond)}
	start := time.Now()
	_, err := q.BClaim(ctx, time.Minute)
	took := time.Since(start)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("BClaim: %v, want context.Canceled", err)
	}
	if limit := 300*time.Millisecond + BClaimSlice + 500*time.Millisecond; took > limit {
		t.Fatalf("a missed cancel cost %v, want at most about one slice (%v)", took, BClaimSlice)
	}
}

// Deadlines that race with the server's own reply: whichever wins, the
// next call on the client must work (the binding reconnects when a cancel
// may have landed after the reply).
func TestCancelRacingTheReplyLeavesClientUsable(t *testing.T) {
	q := newQueue(t, dial(t))
	bg := context.Background()
	for i := 0; i < 300; i++ {
		ctx, cancel := context.WithTimeout(bg, time.Duration(1+i%3)*time.Millisecond)
		if _, err := q.BClaim(ctx, time.Minute); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("round %d: BClaim: %v", i, err)
		}
		cancel()
		if _, err := q.Stats(bg); err != nil {
			t.Fatalf("round %d: the call after a cancelled wait failed: %v", i, err)
		}
	}
}
