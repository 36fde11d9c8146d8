package echomq

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/echomq/echomq/bindings/go/internal/capi"
)

// cHeap is the C heap in use (glibc mallinfo2), after letting finalizers run.
func cHeap() int64 {
	runtime.GC()
	runtime.GC()
	return int64(capi.C_heap_in_use())
}

// The measurement must see C allocations, or the leak check below would
// pass for nothing: a batch holding 4 MiB of payload copies must show.
func TestCHeapMeasureSeesAllocations(t *testing.T) {
	before := cHeap()
	b := capi.Batch_create()
	payload := make([]byte, 1<<20)
	for i := 0; i < 4; i++ {
		if rc := capi.Batch_add(b, "g", payload); rc != 0 {
			t.Fatalf("batch_add: %d", rc)
		}
	}
	during := cHeap()
	capi.Batch_free(b)
	after := cHeap()
	if during-before < 4<<20 {
		t.Fatalf("4 MiB in a C batch moved the C heap by %d bytes only", during-before)
	}
	if after-before > 64<<10 {
		t.Fatalf("freeing the batch left %d bytes", after-before)
	}
}

// Every path that takes C memory gives it back: run the whole API, error
// paths included, many times and compare the C heap and the live handles.
func TestNoCMemoryLeaks(t *testing.T) {
	ctx := ctxT(t)
	c := dial(t)
	q := newQueue(t, c)
	round := func(i int) {
		payload := make([]byte, 256+i%64)
		must(q.Enqueue(ctx, "a", payload))(t)
		must(q.EnqueueBatch(ctx, []BatchJob{{Group: "b", Payload: payload}, {Group: "c", Payload: payload}, {Group: "d"}}))(t)
		j := must(q.Claim(ctx, time.Minute))(t)
		next := must(j.AckClaim(ctx, time.Minute))(t)
		must(next.Extend(ctx, time.Minute))(t)
		must(next.Fail(ctx, "leak check", 0))(t)
		for {
			jobs, err := q.WClaim(ctx, time.Minute, 10)
			if errors.Is(err, ErrEmpty) {
				break
			}
			mustOK(t, err)
			for _, j := range jobs {
				mustOK(t, j.Ack(ctx))
			}
		}
		if err := j.Ack(ctx); err == nil { // error path: stale ack
			t.Fatal("stale ack accepted")
		}
		if _, err := q.Claim(ctx, time.Minute); !errors.Is(err, ErrEmpty) { // empty path
			t.Fatalf("claim on empty: %v", err)
		}
		if _, err := q.Enqueue(ctx, "bad\x01", nil); !errors.Is(err, ErrInvalid) { // refused path
			t.Fatalf("bad group: %v", err)
		}
		if _, err := q.EnqueueBatch(ctx, []BatchJob{{Group: "ok"}, {Group: ""}}); !errors.Is(err, ErrInvalid) {
			t.Fatalf("bad batch: %v", err)
		}
		must(q.Stats(ctx))(t)
		must(q.Lane(ctx, "a"))(t)
		must2(q.Lanes(ctx, "", 10))(t)
		must(q.Dead(ctx, 0, 10))(t)
		must(q.Shards(ctx))(t)
		if i%50 == 0 {
			must(q.Verify(ctx))(t)
		}
		bctx, cancel := context.WithTimeout(ctx, 2*time.Millisecond)
		if _, err := q.BClaim(bctx, time.Minute); err == nil {
			t.Fatal("bclaim on an empty queue returned a job")
		}
		cancel()
	}
	for i := 0; i < 100; i++ { // warm up buffers and caches
		round(i)
	}
	handles := live.total()
	before := cHeap()
	const rounds = 1000
	for i := 0; i < rounds; i++ {
		round(i)
	}
	grew := cHeap() - before
	t.Logf("C heap moved by %d bytes over %d rounds", grew, rounds)
	// A leak of one job handle per round would be > 256 KiB here.
	if grew > 128<<10 {
		t.Fatalf("C heap grew by %d bytes over %d rounds", grew, rounds)
	}
	if n := live.total(); n != handles {
		t.Fatalf("live C handles %d, was %d", n, handles)
	}
	// Clients: Dial and Close give their handle back, the finalizer too.
	clients := live.clients.Load()
	for i := 0; i < 20; i++ {
		c2, err := Dial(ctx, serverURL)
		mustOK(t, err)
		if i%2 == 0 {
			c2.Close()
		}
	}
	for i := 0; i < 20 && live.clients.Load() != clients; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := live.clients.Load(); n != clients {
		t.Fatalf("live clients %d after Close and finalizers, want %d", n, clients)
	}
}
