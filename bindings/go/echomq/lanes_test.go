package echomq

import (
	"errors"
	"testing"
	"time"
)

func TestLimit(t *testing.T) {
	ctx := ctxT(t)
	q := newQueue(t, dial(t))
	mustOK(t, q.Limit(ctx, "L", 2))
	for i := 0; i < 5; i++ {
		must(q.Enqueue(ctx, "L", []byte{byte(i)}))(t)
	}
	a := must(q.Claim(ctx, time.Minute))(t)
	b := must(q.Claim(ctx, time.Minute))(t)
	if _, err := q.Claim(ctx, time.Minute); !errors.Is(err, ErrEmpty) {
		t.Fatalf("third claim at limit 2: %v, want ErrEmpty", err)
	}
	lane := must(q.Lane(ctx, "L"))(t)
	if lane.Active != 2 || lane.Limit != 2 || lane.LimitIsDefault || lane.Serviceable || lane.Depth != 3 {
		t.Fatalf("lane at its ceiling: %+v", lane)
	}
	if jobs, err := q.WClaim(ctx, time.Minute, 10); !errors.Is(err, ErrEmpty) {
		t.Fatalf("wclaim at the ceiling: %d jobs, %v", len(jobs), err)
	}
	mustOK(t, a.Ack(ctx))
	c := must(q.Claim(ctx, time.Minute))(t) // a slot freed
	if _, err := q.Claim(ctx, time.Minute); !errors.Is(err, ErrEmpty) {
		t.Fatalf("claim after refill: %v, want ErrEmpty", err)
	}
	mustOK(t, q.ClearLimit(ctx, "L"))
	lane = must(q.Lane(ctx, "L"))(t)
	if lane.Limit != 0 || !lane.Serviceable {
		t.Fatalf("cleared limit: %+v", lane)
	}
	d := must(q.Claim(ctx, time.Minute))(t)
	for _, j := range []*Job{b, c, d} {
		mustOK(t, j.Ack(ctx))
	}
	// A queue default applies to lanes without their own limit.
	mustOK(t, q.DefaultLimit(ctx, 1))
	e := must(q.Claim(ctx, time.Minute))(t)
	if _, err := q.Claim(ctx, time.Minute); !errors.Is(err, ErrEmpty) {
		t.Fatalf("claim past default limit 1: %v", err)
	}
	if lane := must(q.Lane(ctx, "L"))(t); lane.Limit != 1 || !lane.LimitIsDefault {
		t.Fatalf("default limit: %+v", lane)
	}
	mustOK(t, q.DefaultLimit(ctx, 0))
	mustOK(t, e.Ack(ctx))
	if n := drain(t, q); n != 0 {
		t.Fatalf("drained %d, want 0 left", n)
	}
}

func TestPauseResume(t *testing.T) {
	ctx := ctxT(t)
	q := newQueue(t, dial(t))
	for i := 0; i < 3; i++ {
		must(q.Enqueue(ctx, "P", []byte("p")))(t)
		must(q.Enqueue(ctx, "R", []byte("r")))(t)
	}
	mustOK(t, q.Pause(ctx, "P"))
	mustOK(t, q.Pause(ctx, "P")) // idempotent
	for i := 0; i < 3; i++ {
		j := must(q.Claim(ctx, time.Minute))(t)
		if j.Group != "R" {
			t.Fatalf("paused lane P served")
		}
		mustOK(t, j.Ack(ctx))
	}
	if _, err := q.Claim(ctx, time.Minute); !errors.Is(err, ErrEmpty) {
		t.Fatalf("only a paused lane left: %v, want ErrEmpty", err)
	}
	lane := must(q.Lane(ctx, "P"))(t)
	if !lane.Paused || lane.Serviceable || lane.Depth != 3 {
		t.Fatalf("paused lane: %+v", lane)
	}
	if st := must(q.Stats(ctx))(t); st.Paused != 1 || st.Ring != 0 {
		t.Fatalf("stats while paused: %+v", st)
	}
	mustOK(t, q.Resume(ctx, "P"))
	if n := drain(t, q); n != 3 {
		t.Fatalf("after resume drained %d, want 3", n)
	}
}

func TestDefaultsAndLaneListing(t *testing.T) {
	ctx := ctxT(t)
	q := newQueue(t, dial(t))
	mustOK(t, q.DefaultWeight(ctx, 2))
	mustOK(t, q.DefaultMaxAttempts(ctx, 7))
	names := []string{"l3", "l1", "l2", "l5", "l4"}
	for _, g := range names {
		must(q.Enqueue(ctx, g, nil))(t)
	}
	st := must(q.Stats(ctx))(t)
	if st.DefaultWeight != 2 || st.DefaultMaxAttempts != 7 || st.Lanes != 5 {
		t.Fatalf("stats: %+v", st)
	}
	var got []string
	after := ""
	for pages := 0; pages < 10; pages++ {
		lanes, next := must2(q.Lanes(ctx, after, 2))(t)
		for _, l := range lanes {
			got = append(got, l.Group)
			if l.Weight != 2 || !l.WeightIsDefault || l.Depth != 1 || !l.Known {
				t.Fatalf("lane %+v", l)
			}
		}
		if next == "" {
			break
		}
		after = next
	}
	want := []string{"l1", "l2", "l3", "l4", "l5"}
	if len(got) != len(want) {
		t.Fatalf("lanes %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("lanes %v, want %v", got, want)
		}
	}
	if l := must(q.Lane(ctx, "never-used"))(t); l.Known || l.Depth != 0 || l.Weight != 2 {
		t.Fatalf("unknown lane: %+v", l)
	}
	job := must(q.Claim(ctx, time.Minute))(t)
	if job.MaxAttempts != 7 {
		t.Fatalf("max attempts %d, want the default 7", job.MaxAttempts)
	}
	mustOK(t, job.Ack(ctx))
	drain(t, q)
}

func must2[A, B any](a A, b B, err error) func(testing.TB) (A, B) {
	return func(t testing.TB) (A, B) {
		t.Helper()
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return a, b
	}
}
