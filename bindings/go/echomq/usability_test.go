package echomq

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// Times are refused in the caller's own terms (time.Duration), before any
// I/O, never as the C layer's milliseconds.
func TestDurationsAreRefusedInGoTerms(t *testing.T) {
	ctx := ctxT(t)
	c := dial(t)
	q := newQueue(t, c)
	cases := map[string]struct {
		call func() error
		want string
	}{
		"WithDelay(-1s)": {func() error { _, err := q.Enqueue(ctx, "g", nil, WithDelay(-time.Second)); return err },
			"WithDelay: the delay must be 0s..8784h0m0s, got -1s"},
		"Claim(-1s)": {func() error { _, err := q.Claim(ctx, -time.Second); return err },
			"lease must be 1ms..168h0m0s, got -1s"},
		"BClaim(0)": {func() error { _, err := q.BClaim(ctx, 0); return err }, "lease must be 1ms..168h0m0s, got 0s"},
		"WithKeep(-1m)": {func() error { _, err := q.Enqueue(ctx, "g", nil, WithKeep(-time.Minute, 0)); return err },
			"WithKeep: the time must be 0s..8784h0m0s, got -1m0s"},
		"Throttle(0)": {func() error { return q.Throttle(ctx, "g", 0) }, "the throttle must be 1ms..8784h0m0s, got 0s"},
		"Rate(per 2 days)": {func() error { return q.Rate(ctx, "g", 1, 48*time.Hour, 0) },
			"the rate's period must be 1ms..24h0m0s, got 48h0m0s"},
		"Wait(-1s)": {func() error { _, err := q.Wait(ctx, 1, -time.Second); return err },
			"Wait: the timeout must be 0s..24h0m0s, got -1s"},
	}
	for name, tc := range cases {
		err := tc.call()
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "_ms") {
			t.Errorf("%s: %v, want ErrInvalid saying %q", name, err, tc.want)
		}
	}
	st := must(q.Stats(ctx))(t)
	if st.EnqueuedTotal != 0 {
		t.Fatalf("enqueued %d", st.EnqueuedTotal)
	}
}

// Every enqueue option combines with every other: one general shim.
func TestEveryEnqueueOptionCombines(t *testing.T) {
	ctx := ctxT(t)
	c := dial(t)
	q := newQueue(t, c)
	all := []EnqueueOption{WithDelay(time.Millisecond), WithMaxAttempts(5), WithKey("k1"),
		WithDedupWindow(time.Minute), WithKeep(time.Hour, 10), WithCostEstimate(7)}
	id := must(q.Enqueue(ctx, "g", []byte("p"), all...))(t)
	again, err := q.Enqueue(ctx, "g", []byte("p"), all...)
	if !errors.Is(err, ErrDuplicate) || again != id {
		t.Fatalf("second enqueue with the key: %d, %v", again, err)
	}
	time.Sleep(20 * time.Millisecond)
	j := must(q.BClaim(ctx, time.Minute))(t)
	if j.ID != id || j.MaxAttempts != 5 {
		t.Fatalf("claimed %+v", j)
	}
	mustOK(t, j.Ack(ctx))
	done := must(q.Job(ctx, id))(t) // kept by its own retention (WithKeep), with a key (WithKey)
	if done.State != StateCompleted {
		t.Fatalf("state %v", done.State)
	}
	ids, dup, err := q.EnqueueBatchDedup(ctx, []KeyedJob{{Group: "g", Key: "k2"}, {Group: "h", Key: "k2"}},
		WithDelay(0), WithMaxAttempts(2), WithKeep(time.Hour, 0), WithDedupWindow(time.Minute), WithCostEstimate(3))
	mustOK(t, err)
	if !dup[1] || ids[1] != ids[0] {
		t.Fatalf("batch: %v %v", ids, dup)
	}
	for {
		j, err := q.Claim(ctx, time.Minute)
		if errors.Is(err, ErrEmpty) {
			break
		}
		mustOK(t, err)
		mustOK(t, j.Ack(ctx))
	}
}

// A second ack of a settled job is a stale lease (the CLI's exit 5), an id
// the queue never minted is not found.
func TestSecondAckIsStale(t *testing.T) {
	ctx := ctxT(t)
	q := newQueue(t, dial(t))
	must(q.Enqueue(ctx, "g", nil))(t)
	j := must(q.Claim(ctx, time.Minute))(t)
	mustOK(t, j.Ack(ctx))
	if err := j.Ack(ctx); !errors.Is(err, ErrStaleLease) {
		t.Fatalf("second ack: %v, want ErrStaleLease", err)
	}
	ghost := *j
	ghost.ID += 1000
	if err := ghost.Ack(ctx); !errors.Is(err, ErrNotFound) {
		t.Fatalf("ack of an id never minted: %v, want ErrNotFound", err)
	}
}
