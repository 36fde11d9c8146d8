package echomq

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/echomq/echomq/bindings/go/internal/capi"
)

// Bad input is refused with ErrInvalid (or ErrTooLarge) before any I/O:
// the keyspace is the same afterwards, byte for byte.
func TestBadInputWritesNothing(t *testing.T) {
	ctx := ctxT(t)
	c := dial(t, WithMaxPayload(64))
	q := newQueue(t, c)
	must(q.Enqueue(ctx, "ok", []byte("seed")))(t) // a queue that exists
	r := dialRaw(t)
	before := keyspace(t, r)
	if len(before) == 0 {
		t.Fatal("keyspace snapshot is empty: the check would see nothing")
	}

	long := strings.Repeat("g", 257)
	badQueues := []string{"", "has space", "br{ace}", "co:lon", strings.Repeat("q", 129), "nul\x00"}
	badGroups := []string{"", "ctl\x01", "del\x7f", "nul\x00byte", "\xff\xfe", long}
	cases := map[string]func() error{}
	for _, name := range badQueues {
		bq := c.Queue(name)
		cases["enqueue queue "+name] = func() error { _, err := bq.Enqueue(ctx, "g", nil); return err }
		cases["claim queue "+name] = func() error { _, err := bq.Claim(ctx, time.Second); return err }
		cases["stats queue "+name] = func() error { _, err := bq.Stats(ctx); return err }
	}
	for _, g := range badGroups {
		cases["enqueue group "+g] = func() error { _, err := q.Enqueue(ctx, g, nil); return err }
		cases["weight group "+g] = func() error { return q.Weight(ctx, g, 2) }
		cases["pause group "+g] = func() error { return q.Pause(ctx, g) }
		cases["batch group "+g] = func() error {
			_, err := q.EnqueueBatch(ctx, []BatchJob{{Group: "fine"}, {Group: g}})
			return err
		}
	}
	cases["zero lease"] = func() error { _, err := q.Claim(ctx, 0); return err }
	cases["negative lease"] = func() error { _, err := q.Claim(ctx, -time.Second); return err }
	cases["lease over a week"] = func() error { _, err := q.Claim(ctx, 8*24*time.Hour); return err }
	cases["wclaim max 0"] = func() error { _, err := q.WClaim(ctx, time.Second, 0); return err }
	cases["wclaim max too big"] = func() error { _, err := q.WClaim(ctx, time.Second, 10001); return err }
	cases["weight 0"] = func() error { return q.Weight(ctx, "ok", 0) }
	cases["limit 0"] = func() error { return q.Limit(ctx, "ok", 0) }
	cases["default weight 0"] = func() error { return q.DefaultWeight(ctx, 0) }
	cases["negative delay"] = func() error { _, err := q.Enqueue(ctx, "g", nil, WithDelay(-time.Second)); return err }
	cases["empty batch"] = func() error { _, err := q.EnqueueBatch(ctx, nil); return err }
	cases["lanes count 0"] = func() error { _, _, err := q.Lanes(ctx, "", 0); return err }
	cases["dead count 0"] = func() error { _, err := q.Dead(ctx, 0, 0); return err }

	for name, call := range cases {
		if err := call(); !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: %v, want ErrInvalid", name, err)
		}
	}
	big := make([]byte, 65)
	if _, err := q.Enqueue(ctx, "g", big); !errors.Is(err, ErrTooLarge) {
		t.Errorf("payload over the client's max: %v, want ErrTooLarge", err)
	}
	if _, err := q.EnqueueBatch(ctx, []BatchJob{{Group: "g"}, {Group: "g", Payload: big}}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("batch with a payload over the client's max: %v, want ErrTooLarge", err)
	}
	huge := make([]BatchJob, capi.ECHOMQ_BATCH_MAX+1)
	for i := range huge {
		huge[i].Group = "g"
	}
	if _, err := q.EnqueueBatch(ctx, huge); !errors.Is(err, ErrTooLarge) {
		t.Errorf("batch over ECHOMQ_BATCH_MAX: %v, want ErrTooLarge", err)
	}
	if _, err := Dial(ctx, "http://nope"); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad URL: %v, want ErrInvalid", err)
	}

	if after := keyspace(t, r); !reflect.DeepEqual(before, after) {
		t.Fatalf("keyspace changed by refused calls: %d keys before, %d after", len(before), len(after))
	}
	mustOK(t, must(q.Claim(ctx, time.Minute))(t).Ack(ctx))
}
