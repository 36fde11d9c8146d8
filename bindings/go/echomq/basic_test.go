package echomq

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

func TestEnqueueClaimAckBinaryPayload(t *testing.T) {
	ctx := ctxT(t)
	q := newQueue(t, dial(t))
	payload := make([]byte, 0, 512)
	for i := 0; i < 512; i++ {
		payload = append(payload, byte(i)) // every byte value, NULs included
	}
	group := "tenant-ü-1"
	id := must(q.Enqueue(ctx, group, payload))(t)
	if id == 0 {
		t.Fatal("enqueue returned id 0")
	}
	job := must(q.Claim(ctx, 10*time.Second))(t)
	if job.ID != id || job.Group != group || !bytes.Equal(job.Payload, payload) {
		t.Fatalf("claimed %d %q %d bytes, want %d %q %d bytes", job.ID, job.Group, len(job.Payload), id, group, len(payload))
	}
	if job.Attempt != 1 || job.Token == 0 || job.Token >= 1<<53 || job.MaxAttempts != 3 {
		t.Fatalf("attempt %d token %d max attempts %d, want 1, 1..2^53-1 and 3", job.Attempt, job.Token, job.MaxAttempts)
	}
	if job.LeaseUntil.Before(job.EnqueuedAt) || !job.DeadAt.IsZero() {
		t.Fatalf("times: lease %v enqueued %v dead %v", job.LeaseUntil, job.EnqueuedAt, job.DeadAt)
	}
	mustOK(t, job.Ack(ctx))
	if _, err := q.Claim(ctx, time.Second); !errors.Is(err, ErrEmpty) {
		t.Fatalf("claim on drained queue: %v, want ErrEmpty", err)
	}
	if err := job.Ack(ctx); !errors.Is(err, ErrStaleLease) && !errors.Is(err, ErrNotFound) {
		t.Fatalf("second ack: %v, want ErrStaleLease or ErrNotFound", err)
	}
	st := must(q.Stats(ctx))(t)
	if st.EnqueuedTotal != 1 || st.AckedTotal != 1 || st.Pending != 0 || st.Leased != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestEmptyPayload(t *testing.T) {
	ctx := ctxT(t)
	q := newQueue(t, dial(t))
	must(q.Enqueue(ctx, "g", nil))(t)
	job := must(q.Claim(ctx, time.Second))(t)
	if len(job.Payload) != 0 {
		t.Fatalf("payload %q, want empty", job.Payload)
	}
	mustOK(t, job.Ack(ctx))
}
