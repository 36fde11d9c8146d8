package echomq

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestCancelWaitingLeasedAndFinished(t *testing.T) {
	c := dial(t)
	q := newQueue(t, c)
	bg := ctxT(t)
	a := must(q.Enqueue(bg, "g", []byte("a")))(t)
	b := must(q.Enqueue(bg, "g", []byte("b"), WithDelay(time.Minute)))(t)
	if st := must(q.Cancel(bg, a, "why", false))(t); st != StatePending {
		t.Fatalf("pending: %v", st)
	}
	if st := must(q.Cancel(bg, b, "", true))(t); st != StateDelayed {
		t.Fatalf("delayed: %v", st)
	}
	if j := must(q.Job(bg, a))(t); j.State != StateDead || j.LastError != "canceled: why" {
		t.Fatalf("canceled job: %+v", j)
	}
	id := must(q.Enqueue(bg, "g", []byte("c")))(t)
	j := must(q.Claim(bg, time.Minute))(t)
	if st := must(q.Cancel(bg, id, "", false))(t); st != StateLeased {
		t.Fatalf("leased: %v", st)
	}
	_ = j.Ack(bg) // settles as canceled whatever it reports
	if got := must(q.Job(bg, id))(t); got.State != StateDead || got.LastError != "canceled" {
		t.Fatalf("after the ack: %+v", got)
	}
	d := must(q.Enqueue(bg, "g", []byte("d")))(t)
	mustOK(t, must(q.Claim(bg, time.Minute))(t).Ack(bg))
	if _, err := q.Cancel(bg, d, "", false); !errors.Is(err, ErrFinished) {
		t.Fatalf("finished: %v", err)
	}
	if _, err := q.Cancel(bg, 1<<40, "", false); !errors.Is(err, ErrNotFound) {
		t.Fatalf("never enqueued: %v", err)
	}
	if _, err := q.Enqueue(bg, "g", []byte("x"), WithExpireDrop()); !errors.Is(err, ErrInvalid) {
		t.Fatalf("drop without a deadline: %v", err)
	}
	if _, err := q.Enqueue(bg, "g", []byte("x"), WithTimeout(-time.Second)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("negative timeout: %v", err)
	}
	if err := q.SetLimitBurst(bg, "g", 3, 2); !errors.Is(err, ErrInvalid) {
		t.Fatalf("burst below the limit: %v", err)
	}
	if st := must(q.Stats(bg))(t); st.CanceledTotal != 3 {
		t.Fatalf("stats: %+v", st)
	}
	mustOK(t, q.SetLimitBurst(bg, "busy", 1, 3))
	for i := 0; i < 3; i++ {
		must(q.Enqueue(bg, "busy", []byte("b")))(t)
	}
	must(q.Claim(bg, time.Minute))(t)
	if l := must(q.Lane(bg, "busy"))(t); l.Burst != 3 || !l.Bursting {
		t.Fatalf("lane: %+v", l)
	}
	if st := must(q.Stats(bg))(t); st.Bursting != 1 {
		t.Fatalf("bursting: %+v", st)
	}
	assertVerified(t, q)
}

func TestWorkerHandlerContextCanceledAndTimedOut(t *testing.T) {
	c := dial(t)
	q := newQueue(t, c)
	bg := ctxT(t)
	causes := make(chan error, 4)
	started := make(chan uint64, 4)
	w := &Worker{
		URL: serverURL, Queue: q.Name(), Concurrency: 2, Lease: 3 * time.Second, RetryIn: RetryNow,
		Handler: func(ctx context.Context, j *Job) error {
			if string(j.Payload) == "quick" && j.Attempt > 1 {
				return nil // the retry of the timed-out attempt
			}
			started <- j.ID
			<-ctx.Done()
			causes <- context.Cause(ctx)
			return ctx.Err()
		},
	}
	cancelMe := must(q.Enqueue(bg, "g", []byte("slow")))(t)
	must(q.Enqueue(bg, "h", []byte("quick"), WithTimeout(300*time.Millisecond), WithMaxAttempts(3)))(t)
	ctx, stop := context.WithCancel(bg)
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	for i := 0; i < 2; i++ {
		select {
		case <-started:
		case <-time.After(10 * time.Second):
			t.Fatal("handlers did not start")
		}
	}
	t0 := time.Now()
	must(q.Cancel(bg, cancelMe, "", false))(t)
	seen := map[error]bool{}
	for i := 0; i < 2; i++ {
		select {
		case err := <-causes:
			seen[err] = true
		case <-time.After(10 * time.Second):
			t.Fatal("a handler was not told")
		}
	}
	if !seen[ErrJobCanceled] || !seen[ErrTimedOut] {
		t.Fatalf("causes: %v", seen)
	}
	if time.Since(t0) > 2*time.Second { // within one extension interval (a third of the lease)
		t.Fatalf("told after %v", time.Since(t0))
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		s := must(q.Stats(bg))(t)
		if s.AckedTotal == 1 && s.Dead == 1 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	mustOK(t, <-done)
	if j := must(q.Job(bg, cancelMe))(t); j.State != StateDead || j.LastError != "canceled" {
		t.Fatalf("canceled job: %+v", j)
	}
	if st := w.Stats(); st.Canceled != 1 || st.TimedOut != 1 {
		t.Fatalf("worker stats: %+v", st)
	}
	assertVerified(t, q)
}

func TestCancelAFlowsParentCancelsWhatHasNotRun(t *testing.T) {
	ctx := ctxT(t)
	q := newQueue(t, dial(t))
	f := Chord([]Step{{Lane: "a"}, {Lane: "b"}, {Lane: "c"}}, Step{Lane: "sum"})
	ids := must(q.EnqueueFlow(ctx, f, 0))(t)
	held := must(q.Claim(ctx, time.Minute))(t) // one of the group is running
	if st := must(q.Cancel(ctx, ids[f.Root()], "", false))(t); st != StateWaiting {
		t.Fatalf("the parent was %v, want waiting", st)
	}
	for _, id := range ids {
		j := must(q.Job(ctx, id))(t)
		if id == held.ID {
			if j.State != StateLeased {
				t.Fatalf("the running job: %+v", j)
			}
		} else if j.State != StateDead || j.LastError != "canceled" {
			t.Fatalf("job %d: %+v", id, j)
		}
	}
	_ = held.Ack(ctx) // settles as canceled
	if j := must(q.Job(ctx, held.ID))(t); j.State != StateDead {
		t.Fatalf("after the ack: %+v", j)
	}
	assertVerified(t, q)
}

func TestLifecycleReadsTheQueuesSettings(t *testing.T) {
	ctx := ctxT(t)
	q := newQueue(t, dial(t))
	if s := must(q.Lifecycle(ctx))(t); s.DefaultTimeout != 0 || s.QueueLimit != 0 || s.Rate != nil || s.Tokens != -1 {
		t.Fatalf("none set: %+v", s)
	}
	mustOK(t, q.SetDefaultTimeout(ctx, 90*time.Second))
	mustOK(t, q.SetQueueLimit(ctx, 7))
	mustOK(t, q.SetQueueRate(ctx, 50, 2*time.Second, 60))
	must(q.Enqueue(ctx, "g", []byte("x")))(t)
	must(q.Claim(ctx, time.Minute))(t)
	s := must(q.Lifecycle(ctx))(t)
	if s.DefaultTimeout != 90*time.Second || s.QueueLimit != 7 || s.Leased != 1 {
		t.Fatalf("settings: %+v", s)
	}
	if s.Rate == nil || *s.Rate != (Rate{Jobs: 50, Per: 2 * time.Second, Burst: 60}) {
		t.Fatalf("rate: %+v", s.Rate)
	}
	if s.Tokens < 58 || s.Tokens > 60 {
		t.Fatalf("tokens: %v", s.Tokens)
	}
	bad := &Queue{c: q.c, name: ""}
	if _, err := bad.Lifecycle(ctx); !errors.Is(err, ErrInvalid) {
		t.Fatalf("no name: %v", err)
	}
}
