package echomq

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestRetainedResultAndItsEnd(t *testing.T) {
	c := dial(t)
	q := newQueue(t, c)
	bg := ctxT(t)
	if err := q.SetRetention(bg, 300*time.Millisecond, 0); err != nil {
		t.Fatal(err)
	}
	id := must(q.Enqueue(bg, "g", []byte("p")))(t)
	job := must(q.Claim(bg, time.Minute))(t)
	if err := job.ReportProgress(bg, []byte("half")); err != nil {
		t.Fatal(err)
	}
	if err := job.AckResult(bg, []byte("r\x00s")); err != nil {
		t.Fatal(err)
	}
	got := must(q.Job(bg, id))(t)
	if got.State != StateCompleted || string(got.Result) != "r\x00s" || string(got.Progress) != "half" ||
		got.StartedAt.IsZero() || got.FinishedAt.Before(got.StartedAt) {
		t.Fatalf("retained job: %+v", got)
	}
	time.Sleep(400 * time.Millisecond)
	if _, err := q.Job(bg, id); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after its time: %v", err)
	}
	if err := q.SetRetention(bg, 0, 0); !errors.Is(err, ErrInvalid) {
		t.Fatalf("zero retention: %v", err)
	}
	if _, err := q.Enqueue(bg, "g", nil, WithKeep(-time.Second, 0)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("negative keep: %v", err)
	}
	if err := q.SetEvents(bg, 0, false); !errors.Is(err, ErrInvalid) {
		t.Fatalf("zero max length: %v", err)
	}
}

func TestWaitWakesCancelsAndTimesOut(t *testing.T) {
	c, w := dial(t), dial(t)
	q := newQueue(t, c)
	wq := w.Queue(q.Name())
	bg := ctxT(t)
	id := must(q.Enqueue(bg, "g", []byte("p")))(t)
	job := must(q.Claim(bg, time.Minute))(t)
	type res struct {
		j   *Job
		err error
		at  time.Time
	}
	done := make(chan res, 1)
	go func() {
		j, err := wq.Wait(bg, id, 10*time.Second)
		done <- res{j, err, time.Now()}
	}()
	time.Sleep(300 * time.Millisecond)
	if err := job.AckResult(bg, []byte("42")); err != nil {
		t.Fatal(err)
	}
	acked := time.Now()
	r := <-done
	if r.err != nil || r.j.State != StateCompleted || string(r.j.Result) != "42" {
		t.Fatalf("wait: %+v %v", r.j, r.err)
	}
	if d := r.at.Sub(acked); d > 100*time.Millisecond {
		t.Fatalf("woke %v after the ack", d)
	}
	other := must(q.Enqueue(bg, "g", []byte("p2")))(t)
	if _, err := q.Wait(bg, other, 100*time.Millisecond); !errors.Is(err, ErrPending) {
		t.Fatalf("timeout: %v", err)
	}
	ctx, cancel := context.WithCancel(bg)
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	start := time.Now()
	if _, err := wq.Wait(ctx, other, 20*time.Second); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancel: %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("cancel did not interrupt the wait")
	}
}

func TestEventsChannelSeesEveryCompletion(t *testing.T) {
	c := dial(t)
	q := newQueue(t, c)
	bg := ctxT(t)
	if err := q.SetEvents(bg, 10000, false); err != nil {
		t.Fatal(err)
	}
	want := map[uint64]bool{}
	for i := 0; i < 20; i++ {
		want[must(q.Enqueue(bg, "g", nil))(t)] = true
	}
	for {
		j, err := q.Claim(bg, time.Minute)
		if errors.Is(err, ErrEmpty) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := j.Ack(bg); err != nil {
			t.Fatal(err)
		}
	}
	ch, wait := q.Events(bg, "0", false)
	seen := map[uint64]int{}
	last := ""
	for e := range ch {
		if last != "" && !streamIDLess(t, last, e.StreamID) {
			t.Fatalf("out of order: %s after %s", e.StreamID, last)
		}
		last = e.StreamID
		if e.Type == "completed" {
			seen[e.JobID]++
			if e.Lane != "g" || e.Attempt != 1 || e.Time.IsZero() {
				t.Fatalf("event %+v", e)
			}
		}
	}
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	if len(seen) != len(want) {
		t.Fatalf("completions of %d jobs, want %d", len(seen), len(want))
	}
	for id := range want {
		if seen[id] != 1 {
			t.Fatalf("job %d completed %d times in the stream", id, seen[id])
		}
	}
}

func TestWorkerHandlerSetsTheResult(t *testing.T) {
	c := dial(t)
	q := newQueue(t, c)
	bg := ctxT(t)
	if err := q.SetRetention(bg, 0, 10); err != nil {
		t.Fatal(err)
	}
	id := must(q.Enqueue(bg, "g", []byte("in")))(t)
	w := &Worker{URL: serverURL, Queue: q.Name(), Concurrency: 1, IdleTimeout: 500 * time.Millisecond,
		Handler: func(ctx context.Context, j *Job) error {
			j.SetResult(append([]byte("out:"), j.Payload...))
			return nil
		}}
	if err := w.Run(bg); err != nil {
		t.Fatal(err)
	}
	got := must(q.Job(bg, id))(t)
	if got.State != StateCompleted || string(got.Result) != "out:in" {
		t.Fatalf("job %+v", got)
	}
}

// streamIDLess orders stream ids "<ms>-<seq>" by their numbers: as strings,
// "...-10" would sort before "...-9".
func streamIDLess(t *testing.T, a, b string) bool {
	t.Helper()
	parse := func(id string) (ms, seq uint64) {
		left, right, ok := strings.Cut(id, "-")
		var err1, err2 error
		ms, err1 = strconv.ParseUint(left, 10, 64)
		seq, err2 = strconv.ParseUint(right, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			t.Fatalf("stream id %q", id)
		}
		return ms, seq
	}
	am, as := parse(a)
	bm, bs := parse(b)
	return am < bm || (am == bm && as < bs)
}

func TestStreamIDsCompareAsNumbers(t *testing.T) {
	if !streamIDLess(t, "1700000000000-9", "1700000000000-10") || streamIDLess(t, "2-0", "10-0") == false ||
		streamIDLess(t, "5-1", "5-1") {
		t.Fatal("stream id order")
	}
}
