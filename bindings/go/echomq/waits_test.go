package echomq

import (
	"errors"
	"math"
	"testing"
	"time"
)

// Wait figures from Go: the window setting, a lane's waits and shares, and
// a tenant's row (its figures those of its lanes).
func TestWaitFigures(t *testing.T) {
	ctx := ctxT(t)
	q := newQueue(t, dial(t))
	if w, err := q.WaitFigures(ctx); err != nil || w != 0 {
		t.Fatalf("WaitFigures before = %v, %v", w, err)
	}
	if err := q.SetWaitFigures(ctx, 1500*time.Millisecond); !errors.Is(err, ErrInvalid) {
		t.Fatalf("a window of 1.5 s: %v, want ErrInvalid", err)
	}
	if err := q.SetWaitFigures(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	if w, err := q.WaitFigures(ctx); err != nil || w != time.Minute {
		t.Fatalf("WaitFigures = %v, %v", w, err)
	}
	for _, g := range []string{"t/a", "t/b", "p"} {
		must(q.Enqueue(ctx, g, []byte("x")))(t)
	}
	time.Sleep(50 * time.Millisecond)
	for i := 0; i < 3; i++ {
		if j, err := q.Claim(ctx, time.Minute); err != nil || j == nil {
			t.Fatalf("claim: %v, %v", j, err)
		}
	}
	p, err := q.Lane(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if p.Tenant != "" || p.IsTenant || p.WaitSamples != 1 || p.WindowClaims != 1 {
		t.Fatalf("p: %+v", p)
	}
	// The figure is the upper edge of the sqrt(2) bucket of a wait >= 50 ms.
	if p.WaitP50 < 50*time.Millisecond || p.WaitP99 != p.WaitP50 {
		t.Fatalf("p waits: p50 %v p99 %v", p.WaitP50, p.WaitP99)
	}
	if math.Abs(p.Share-1.0/3) > 1e-5 || math.Abs(p.FairShare-0.5) > 1e-5 || p.CostV != -1 || p.SitsOut {
		t.Fatalf("p shares: %+v", p)
	}
	a, _ := q.Lane(ctx, "t/a")
	ten, _ := q.Lane(ctx, "t/")
	if a.Tenant != "t" || a.IsTenant || math.Abs(a.FairShare-0.25) > 1e-5 {
		t.Fatalf("t/a: %+v", a)
	}
	if ten.Tenant != "t" || !ten.IsTenant || ten.WindowClaims != 2 || ten.WaitSamples != 2 {
		t.Fatalf("t/: %+v", ten)
	}
	if err := q.SetWaitFigures(ctx, 0); err != nil {
		t.Fatal(err)
	}
	if p, _ = q.Lane(ctx, "p"); p.WaitSamples != 0 || p.WaitP50 != -1 || p.Share != -1 {
		t.Fatalf("after off: %+v", p)
	}
}
