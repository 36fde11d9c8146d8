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
// 100 lanes outside the timer; ns/op is one job.

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
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
}

func benchAckClaim(b *testing.B, ctx context.Context) {
	q := newQueue(b, dial(b))
	preload(b, q, b.N)
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
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
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
