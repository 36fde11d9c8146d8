package echomq

import (
	"errors"
	"fmt"
	"testing"
	"time"
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

func BenchmarkClaimAck(b *testing.B) {
	q := newQueue(b, dial(b))
	preload(b, q, b.N)
	ctx := ctxT(b)
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

func BenchmarkAckClaim(b *testing.B) {
	q := newQueue(b, dial(b))
	preload(b, q, b.N)
	ctx := ctxT(b)
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
