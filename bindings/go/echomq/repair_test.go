package echomq

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// Repair: a dry run reports and writes nothing; applied, it fixes what
// Verify reports (a hidden underflow, a lane lost from the ring), and a
// second repair finds nothing.
func TestRepairDryRunThenApply(t *testing.T) {
	ctx := ctxT(t)
	c := dial(t)
	q := newQueue(t, c)
	must(q.Enqueue(ctx, "a", []byte("1")))(t)
	must(q.Enqueue(ctx, "b", []byte("2")))(t)
	held := must(q.Claim(ctx, time.Minute))(t)
	r := dialRaw(t)
	prefix := "emq:{" + q.Name() + "}:"
	r.do(t, "HSET", prefix+"gactive", "b", "-1")
	r.do(t, "LREM", prefix+"ring", "0", "b")
	if len(must(q.Verify(ctx))(t)) == 0 {
		t.Fatal("verify saw nothing planted")
	}
	before := keyspace(t, r)
	planned := must(q.Repair(ctx, false, 1))(t)
	if !strings.Contains(strings.Join(planned, "\n"), "gactive: lane b -1 (a hidden underflow) -> 0") ||
		!strings.Contains(strings.Join(planned, "\n"), "ring: lane b added") {
		t.Fatalf("dry run: %q", planned)
	}
	after := keyspace(t, r)
	for k, v := range before {
		if after[k] != v {
			t.Fatalf("the dry run changed %s", k)
		}
	}
	made := must(q.Repair(ctx, true, 0))(t)
	if strings.Join(made, "\n") != strings.Join(planned, "\n") {
		t.Fatalf("applied %q, planned %q", made, planned)
	}
	if v := must(q.Verify(ctx))(t); len(v) != 0 {
		t.Fatalf("verify after repair: %q", v)
	}
	if again := must(q.Repair(ctx, true, 0))(t); len(again) != 0 {
		t.Fatalf("second repair: %q", again)
	}
	mustOK(t, held.Ack(ctx))
	mustOK(t, must(q.Claim(ctx, time.Minute))(t).Ack(ctx))
	if _, err := q.Repair(ctx, false, -1); !errors.Is(err, ErrInvalid) {
		t.Fatalf("step -1: %v", err)
	}
}
