package echomq

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/echomq/echomq/bindings/go/internal/capi"
)

// Claim+ack rate from Go with one client, and the fused AckClaim (one
// round trip per job). Run with:
//
//	go test -run '^$' -bench . -count 5 ./echomq
//
// Jobs (16-byte payloads, as in bench/ of the C loop) are preloaded over
// 100 lanes outside the timer; ns/op is one job. Like the C benchmark, each
// run also samples the round-trip floor (EVALSHA of `return 1` on a plain
// connection, before and after the timed loop) and reports jobs/s over
// floor calls/s as x-floor, which stays comparable on a busy machine.

func preload(b *testing.B, q *Queue, n int) {
	b.Helper()
	ctx := ctxT(b)
	payload := make([]byte, 16)
	for done := 0; done < n; {
		k := min(n-done, 10000)
		batch := make([]BatchJob, k)
		for i := range batch {
			batch[i] = BatchJob{Group: fmt.Sprintf("lane%d", (done+i)%100), Payload: payload}
		}
		must(q.EnqueueBatch(ctx, batch))(b)
		done += k
	}
}

// BenchmarkClaimAck uses context.Background, like the C loop: no
// cancellation to watch. BenchmarkClaimAckCancellable pays for a context
// that can be cancelled (an AfterFunc registered around each call).
func BenchmarkClaimAck(b *testing.B) { benchClaimAck(b, context.Background()) }

func BenchmarkClaimAckCancellable(b *testing.B) { benchClaimAck(b, ctxT(b)) }

func BenchmarkAckClaim(b *testing.B) { benchAckClaim(b, context.Background()) }

func BenchmarkAckClaimCancellable(b *testing.B) { benchAckClaim(b, ctxT(b)) }

func benchClaimAck(b *testing.B, ctx context.Context) {
	q := newQueue(b, dial(b))
	preload(b, q, b.N)
	fl := newFloor(b)
	before := fl.rate(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j, err := q.Claim(ctx, time.Minute)
		if err != nil {
			b.Fatal(err)
		}
		if err := j.Ack(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	rate := float64(b.N) / b.Elapsed().Seconds()
	b.ReportMetric(rate, "jobs/s")
	b.ReportMetric(rate/((before+fl.rate(b))/2), "x-floor")
}

func benchAckClaim(b *testing.B, ctx context.Context) {
	q := newQueue(b, dial(b))
	preload(b, q, b.N)
	fl := newFloor(b)
	before := fl.rate(b)
	b.ResetTimer()
	j, err := q.Claim(ctx, time.Minute)
	if err != nil {
		b.Fatal(err)
	}
	for i := 1; i < b.N; i++ {
		if j, err = j.AckClaim(ctx, time.Minute); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := j.AckClaim(ctx, time.Minute); !errors.Is(err, ErrEmpty) {
		b.Fatalf("last ack-claim: %v, want ErrEmpty", err)
	}
	b.StopTimer()
	rate := float64(b.N) / b.Elapsed().Seconds()
	b.ReportMetric(rate, "jobs/s")
	b.ReportMetric(rate/((before+fl.rate(b))/2), "x-floor")
}

// floor is a plain RESP connection that times EVALSHA of `return 1`.
type floor struct {
	r   *raw
	sha string
}

func newFloor(b *testing.B) *floor {
	r := dialRaw(b)
	sha, _ := r.do(b, "SCRIPT", "LOAD", "return 1").(string)
	if sha == "" {
		b.Fatal("floor: SCRIPT LOAD failed")
	}
	return &floor{r: r, sha: sha}
}

// rate is floor calls per second over 2,000 calls.
func (f *floor) rate(b *testing.B) float64 {
	const n = 2000
	start := time.Now()
	for i := 0; i < n; i++ {
		if v, _ := f.r.do(b, "EVALSHA", f.sha, "0").(int64); v != 1 {
			b.Fatal("floor: bad reply")
		}
	}
	return n / time.Since(start).Seconds()
}

// BenchmarkCgoCall is the cost of one SWIG call with a string argument and
// no I/O (echomq_check_group_name): the cgo crossing plus SWIG's copy of the
// string into C memory. Every call of the package pays about this once or
// twice, next to a network round trip of tens of microseconds.
func BenchmarkCgoCall(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if capi.Check_group_name("tenant-42") != 0 {
			b.Fatal("valid name refused")
		}
	}
}
