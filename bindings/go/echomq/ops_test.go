package echomq

import (
	"context"
	"errors"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"
)

func TestEnqueueWithKeyIsIdempotent(t *testing.T) {
	c := dial(t)
	q := newQueue(t, c)
	bg := ctxT(t)
	first := must(q.Enqueue(bg, "a", []byte("x"), WithKey("order-1")))(t)
	again, err := q.Enqueue(bg, "b", []byte("y"), WithKey("order-1"))
	if !errors.Is(err, ErrDuplicate) || again != first {
		t.Fatalf("duplicate: id %d err %v, want %d and ErrDuplicate", again, err, first)
	}
	short := must(q.Enqueue(bg, "a", []byte("z"), WithKey("order-2"), WithDedupWindow(50*time.Millisecond)))(t)
	time.Sleep(80 * time.Millisecond)
	if id, err := q.Enqueue(bg, "a", []byte("z"), WithKey("order-2")); err != nil || id != short+1 {
		t.Fatalf("after the window: id %d err %v", id, err)
	}
	if _, err := q.Enqueue(bg, "a", []byte("x"), WithKey("")); !errors.Is(err, ErrInvalid) {
		t.Fatalf("empty key: %v", err)
	}
	ids, dup := must2(q.EnqueueBatchDedup(bg, []KeyedJob{
		{Group: "a", Payload: []byte("1"), Key: "order-1"},
		{Group: "b", Payload: []byte("2"), Key: "new"},
		{Group: "b", Payload: []byte("3"), Key: "new"},
		{Group: "c", Payload: []byte("4")},
	}))(t)
	if !slices.Equal(dup, []bool{true, false, true, false}) || ids[0] != first || ids[2] != ids[1] || ids[3] != ids[1]+1 {
		t.Fatalf("batch: ids %v duplicate %v", ids, dup)
	}
	if st := must(q.Stats(bg))(t); st.Pending != 5 {
		t.Fatalf("pending %d, want 5", st.Pending)
	}
	assertVerified(t, q)
}

func TestJobDeleteAndPurge(t *testing.T) {
	c := dial(t)
	q := newQueue(t, c)
	bg := ctxT(t)
	id := must(q.Enqueue(bg, "a", []byte("hello"), WithMaxAttempts(2)))(t)
	j := must(q.Job(bg, id))(t)
	if j.State != StatePending || j.Group != "a" || string(j.Payload) != "hello" || j.Token != 0 || j.MaxAttempts != 2 {
		t.Fatalf("pending job %+v", j)
	}
	claimed := must(q.Claim(bg, time.Minute))(t)
	if j := must(q.Job(bg, id))(t); j.State != StateLeased || !j.LeaseUntil.Equal(claimed.LeaseUntil) {
		t.Fatalf("leased job %+v", j)
	}
	if err := q.Delete(bg, id); !errors.Is(err, ErrLeased) {
		t.Fatalf("delete of a leased job: %v", err)
	}
	must(claimed.Fail(bg, "boom", time.Minute))(t)
	if j := must(q.Job(bg, id))(t); j.State != StateDelayed || j.DueAt.IsZero() || j.LastError != "boom" {
		t.Fatalf("delayed job %+v", j)
	}
	mustOK(t, q.Delete(bg, id))
	if _, err := q.Job(bg, id); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted job: %v", err)
	}
	for i := 0; i < 23; i++ {
		must(q.Enqueue(bg, "big", []byte("p")))(t)
	}
	must(q.Enqueue(bg, "big", []byte("later"), WithDelay(time.Minute)))(t)
	must(q.Enqueue(bg, "small", []byte("keep")))(t)
	mustOK(t, q.Weight(bg, "big", 3))
	if n := must(q.purgeLane(bg, "big", false, 5))(t); n != 24 {
		t.Fatalf("purged %d, want 24", n)
	}
	big := must(q.Lane(bg, "big"))(t)
	if big.Depth != 0 || big.Weight != 3 {
		t.Fatalf("purged lane %+v", big)
	}
	if must(q.Lane(bg, "small"))(t).Depth != 1 {
		t.Fatalf("another lane was purged")
	}
	assertVerified(t, q)
}

func TestQueuesListsTheServer(t *testing.T) {
	c := dial(t)
	a, b := newQueue(t, c), newQueue(t, c)
	bg := ctxT(t)
	must(a.Enqueue(bg, "g", []byte("x")))(t)
	must(b.Enqueue(bg, "g", []byte("x")))(t)
	names := must(c.Queues(bg))(t)
	if !slices.Contains(names, a.Name()) || !slices.Contains(names, b.Name()) || !sort.StringsAreSorted(names) {
		t.Fatalf("queues %v", names)
	}
}

func TestWorkerHooks(t *testing.T) {
	c := dial(t)
	q := newQueue(t, c)
	bg := ctxT(t)
	for _, p := range []string{"ok", "flaky", "hopeless"} {
		must(q.Enqueue(bg, p, []byte(p), WithMaxAttempts(2)))(t)
	}
	var mu sync.Mutex
	var seen []string
	note := func(kind string, j *Job) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, kind+" "+string(j.Payload)+" "+string(rune('0'+j.Attempt)))
	}
	w := &Worker{
		URL: serverURL, Queue: q.Name(), Concurrency: 1, IdleTimeout: 500 * time.Millisecond, RetryIn: RetryNow,
		Handler: func(_ context.Context, j *Job) error {
			switch string(j.Payload) {
			case "hopeless":
				return Discard(errors.New("never"))
			case "flaky":
				return errors.New("flaky")
			}
			return nil
		},
		OnCompleted: func(j *Job) { note("completed", j) },
		OnFailed:    func(j *Job, _ error) { note("failed", j) },
		OnDead:      func(j *Job, _ error) { note("dead", j) },
		OnError:     func(err error) { t.Errorf("worker: %v", err) },
	}
	mustOK(t, w.Run(bg))
	sort.Strings(seen)
	want := []string{"completed ok 1", "dead flaky 2", "dead hopeless 1", "failed flaky 1", "failed flaky 2", "failed hopeless 1"}
	if !slices.Equal(seen, want) {
		t.Fatalf("hooks %v, want %v", seen, want)
	}
}
