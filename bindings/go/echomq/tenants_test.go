package echomq

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// Lanes inside tenants from Go: a lane "T/L" belongs to tenant T, whose own
// limit is set on its name "T/" and counts every lane of the tenant; a
// tenant with many lanes gets the share of a tenant with one.
func TestTenants(t *testing.T) {
	ctx := ctxT(t)
	q := newQueue(t, dial(t))
	for i := 0; i < 20; i++ {
		must(q.Enqueue(ctx, "big/u"+string(rune('a'+i)), []byte("x")))(t)
	}
	for i := 0; i < 20; i++ {
		must(q.Enqueue(ctx, "small/u", []byte("y")))(t)
	}
	n := map[string]int{}
	for i := 0; i < 10; i++ {
		j, err := q.Claim(ctx, time.Minute)
		if err != nil || j == nil {
			t.Fatalf("claim: %v, %v", j, err)
		}
		n[strings.SplitN(j.Group, "/", 2)[0]]++
	}
	if n["big"] != 5 || n["small"] != 5 {
		t.Fatalf("tenant shares %v, want 5 and 5", n)
	}
	if err := q.Limit(ctx, "big/", 5); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		j, err := q.Claim(ctx, time.Minute)
		if err != nil || j == nil {
			t.Fatalf("claim: %v, %v", j, err)
		}
		if strings.HasPrefix(j.Group, "big/") {
			t.Fatalf("claim %d served %s: tenant big is at its limit of 5", i, j.Group)
		}
	}
	info, err := q.Lane(ctx, "big/")
	if err != nil || info.Active != 5 {
		t.Fatalf("Lane(big/) = %+v, %v", info, err)
	}
	if _, err := q.Enqueue(ctx, "big/", []byte("x")); !errors.Is(err, ErrInvalid) {
		t.Fatalf("enqueue to a tenant's name: %v, want ErrInvalid", err)
	}
}
