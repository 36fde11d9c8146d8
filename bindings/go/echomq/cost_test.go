package echomq

import (
	"context"
	"errors"
	"testing"
	"time"
)

// Cost mode from Go: Charge on jobs claimed by hand (the Worker hands
// ReportCost to the engine the same way); a lane whose jobs cost ten times
// more gets about a tenth of the turns.
func TestCostModeCharges(t *testing.T) {
	ctx := ctxT(t)
	q := newQueue(t, dial(t))
	if err := q.SetCostMode(ctx, 5); err != nil {
		t.Fatal(err)
	}
	if got, err := q.CostMode(ctx); err != nil || got != 5 {
		t.Fatalf("CostMode = %d, %v", got, err)
	}
	for i := 0; i < 20; i++ {
		for _, g := range []string{"a", "b"} {
			must(q.Enqueue(ctx, g, []byte("x")))(t)
		}
	}
	n := map[string]int{}
	for i := 0; i < 12; i++ {
		j, err := q.Claim(ctx, time.Minute)
		if err != nil || j == nil {
			t.Fatalf("claim: %v, %v", j, err)
		}
		n[j.Group]++
		cost := uint64(1)
		if j.Group == "a" {
			cost = 10
		}
		if err := q.Charge(ctx, j.Group, cost); err != nil {
			t.Fatal(err)
		}
		if err := j.Ack(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n["b"] < 9 {
		t.Fatalf("b (cost 1) got %d of 12 turns against a (cost 10): %v", n["b"], n)
	}
	if err := q.SetCostMode(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if got, _ := q.CostMode(ctx); got != 0 {
		t.Fatalf("CostMode after off = %d", got)
	}
}

// A Handler that sets a result and reports its cost: the result is kept and
// the lane charged the 7 units, not the measured time (20 ms and more, in
// µs): both travel in the one report of the job.
func TestResultAndReportedCostBothCount(t *testing.T) {
	ctx := ctxT(t)
	q := newQueue(t, dial(t))
	if err := q.SetCostMode(ctx, 1000); err != nil {
		t.Fatal(err)
	}
	if err := q.SetRetention(ctx, 0, 10); err != nil {
		t.Fatal(err)
	}
	id := must(q.Enqueue(ctx, "g", []byte("in")))(t)
	w := &Worker{URL: serverURL, Queue: q.Name(), Concurrency: 1, IdleTimeout: 300 * time.Millisecond,
		Handler: func(ctx context.Context, j *Job) error {
			time.Sleep(20 * time.Millisecond)
			j.ReportCost(7)
			j.SetResult([]byte("res"))
			return nil
		}}
	if err := w.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if got := must(q.Job(ctx, id))(t); string(got.Result) != "res" {
		t.Fatalf("result %q", got.Result)
	}
	// The charge came after the claim that emptied the lane, so its v stays.
	if v, _ := dialRaw(t).do(t, "HGET", "emq:{"+q.Name()+"}:gvt", "g").(string); v != "7" {
		t.Fatalf("lane g charged %q, want 7", v)
	}
}

// WithCostEstimate: in cost mode a lane is charged its jobs' estimates at
// the claim, so a lane of expensive jobs sits out while a cheap one goes on.
func TestCostEstimate(t *testing.T) {
	ctx := ctxT(t)
	q := newQueue(t, dial(t))
	if err := q.SetCostMode(ctx, 10); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		must(q.Enqueue(ctx, "big", []byte("x"), WithCostEstimate(100)))(t)
	}
	if _, err := q.EnqueueBatch(ctx, []BatchJob{{Group: "small"}, {Group: "small"}, {Group: "small"}, {Group: "small"}},
		WithCostEstimate(1)); err != nil {
		t.Fatal(err)
	}
	var order []string
	for i := 0; i < 4; i++ {
		j, err := q.Claim(ctx, time.Minute)
		if err != nil || j == nil {
			t.Fatalf("claim: %v, %v", j, err)
		}
		order = append(order, j.Group)
	}
	if order[0] != "big" || order[1] != "small" || order[2] != "small" || order[3] != "small" {
		t.Fatalf("order %v: big (estimate 100) should sit out after its first claim", order)
	}
	if _, err := q.Enqueue(ctx, "g", nil, WithCostEstimate(1<<53)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("estimate 2^53: %v, want ErrInvalid", err)
	}
}
