package echomq

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// The name rule (docs/keys.md, "Tenants") and its messages come from the C
// core, the same as Python's and the CLI's: a bad name is ErrInvalid with
// the core's words, before any I/O.
func TestNameRule(t *testing.T) {
	ctx := ctxT(t)
	q := newQueue(t, dial(t))
	refused := map[string]string{
		"/x":                     "has an empty tenant part",
		"a//b":                   "holds more than one '/'",
		"a/b/":                   "holds more than one '/'",
		"a/b/c":                  "holds more than one '/'",
		strings.Repeat("x", 300): "is 300 bytes long, over the 256-byte limit",
		"acme/":                  "'acme/' names a tenant, not a lane",
	}
	for name, says := range refused {
		_, err := q.Enqueue(ctx, name, []byte("p"))
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), says) {
			t.Errorf("Enqueue(%.12q): %v, want ErrInvalid saying %q", name, err, says)
		}
		if err != nil && strings.Contains(err.Error(), strings.Repeat("x", 40)) {
			t.Errorf("the message repeats the whole name: %v", err)
		}
	}
	if err := q.Weight(ctx, "a//b", 2); !errors.Is(err, ErrInvalid) {
		t.Errorf("Weight(a//b): %v, want ErrInvalid", err)
	}
	if err := q.Weight(ctx, "acme/", 2); err != nil {
		t.Errorf("Weight(acme/): %v (a tenant's own settings)", err)
	}
	if _, err := q.Enqueue(ctx, "acme/u1", []byte("p")); err != nil {
		t.Fatal(err)
	}
	if j, err := q.Claim(ctx, time.Minute); err != nil || j.Group != "acme/u1" {
		t.Fatalf("claim: %v, %v", j, err)
	}
}

// Stats counts lanes, not the tenants' own entries "T/", and the tenants.
func TestStatsCountsTenants(t *testing.T) {
	ctx := ctxT(t)
	q := newQueue(t, dial(t))
	for _, g := range []string{"acme/a", "acme/b", "acme/c", "solo/main", "plain"} {
		must(q.Enqueue(ctx, g, []byte("x")))(t)
	}
	st, err := q.Stats(ctx)
	if err != nil || st.Lanes != 5 || st.Tenants != 2 {
		t.Fatalf("Stats = lanes %d, tenants %d, %v; want 5 lanes in 2 tenants", st.Lanes, st.Tenants, err)
	}
}
