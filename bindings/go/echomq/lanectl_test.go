package echomq

import (
	"errors"
	"testing"
	"time"
)

func TestRateThrottleAndCap(t *testing.T) {
	ctx := ctxT(t)
	q := newQueue(t, dial(t))
	for i := 0; i < 5; i++ {
		must(q.Enqueue(ctx, "a", []byte("a")))(t)
	}
	must(q.Enqueue(ctx, "b", []byte("b")))(t)
	if err := q.Rate(ctx, "a", 1, time.Minute, 1); err != nil {
		t.Fatal(err)
	}
	l, err := q.Lane(ctx, "a")
	if err != nil || l.Rate == nil || l.Rate.Jobs != 1 || l.Rate.Per != time.Minute || l.Tokens != 1 {
		t.Fatalf("lane after Rate: %+v, %v", l, err)
	}
	seen := map[string]int{}
	for i := 0; i < 2; i++ {
		j, err := q.Claim(ctx, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		seen[j.Group]++
	}
	if seen["a"] != 1 || seen["b"] != 1 {
		t.Fatalf("one token for a, then b: %v", seen)
	}
	if _, err := q.Claim(ctx, time.Minute); !errors.Is(err, ErrEmpty) {
		t.Fatalf("a waits for its next token: %v", err)
	}
	if l, _ = q.Lane(ctx, "a"); l.Serviceable || l.NextToken.IsZero() {
		t.Fatalf("a out of the ring until its next token: %+v", l)
	}
	if err := q.ClearRate(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if j, err := q.Claim(ctx, time.Minute); err != nil || j.Group != "a" {
		t.Fatalf("cleared rate frees the lane at once: %v %v", j, err)
	}
	if err := q.Throttle(ctx, "a", 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Claim(ctx, time.Minute); !errors.Is(err, ErrEmpty) {
		t.Fatalf("throttled: %v", err)
	}
	time.Sleep(350 * time.Millisecond)
	if j, err := q.Claim(ctx, time.Minute); err != nil || j.Group != "a" {
		t.Fatalf("throttle over: %v %v", j, err)
	}
	if err := q.Cap(ctx, "a", 2); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Enqueue(ctx, "a", []byte("over")); !errors.Is(err, ErrFull) {
		t.Fatalf("at the cap: %v", err)
	}
	if l, _ = q.Lane(ctx, "a"); l.Depth != 2 || l.Cap != 2 || l.CapIsDefault {
		t.Fatalf("nothing written at the cap: %+v", l)
	}
	if err := q.ClearCap(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if err := q.DefaultRate(ctx, 10, time.Second, 0); err != nil {
		t.Fatal(err)
	}
	if err := q.DefaultCap(ctx, 100); err != nil {
		t.Fatal(err)
	}
	if l, _ = q.Lane(ctx, "b"); l.Rate == nil || l.Rate.Burst != 10 || !l.RateIsDefault || l.Cap != 100 || !l.CapIsDefault {
		t.Fatalf("defaults: %+v", l)
	}
	if err := q.Rate(ctx, "a", 0, time.Second, 0); !errors.Is(err, ErrInvalid) {
		t.Fatalf("zero rate: %v", err)
	}
	if err := q.Cap(ctx, "a", 0); !errors.Is(err, ErrInvalid) {
		t.Fatalf("zero cap: %v", err)
	}
}
