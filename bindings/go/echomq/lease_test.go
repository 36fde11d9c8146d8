package echomq

import (
	"errors"
	"testing"
	"time"
)

// An expired lease brings the job back to its lane with a new token;
// the old holder can no longer ack, fail or extend it.
func TestLeaseExpiryRefusesStaleAck(t *testing.T) {
	ctx := ctxT(t)
	q := newQueue(t, dial(t))
	id := must(q.Enqueue(ctx, "g", []byte("x")))(t)
	first := must(q.Claim(ctx, 150*time.Millisecond))(t)
	if _, err := q.Claim(ctx, time.Minute); !errors.Is(err, ErrEmpty) {
		t.Fatalf("claim while leased: %v", err)
	}
	time.Sleep(400 * time.Millisecond)
	second := must(q.Claim(ctx, time.Minute))(t)
	if second.ID != id || second.Attempt != 2 || second.Token == first.Token {
		t.Fatalf("redelivery: id %d attempt %d token %d, want %d, 2 and not %d", second.ID, second.Attempt,
			second.Token, id, first.Token)
	}
	if err := first.Ack(ctx); !errors.Is(err, ErrStaleLease) {
		t.Fatalf("stale ack: %v, want ErrStaleLease", err)
	}
	var e *Error
	if err := first.Ack(ctx); !errors.As(err, &e) || e.Code != CodeStale || e.Msg == "" {
		t.Fatalf("stale ack error %#v: want *Error with code and message", err)
	}
	if _, err := first.Extend(ctx, time.Minute); !errors.Is(err, ErrStaleLease) {
		t.Fatalf("stale extend: %v", err)
	}
	if _, err := first.Fail(ctx, "late", 0); !errors.Is(err, ErrStaleLease) {
		t.Fatalf("stale fail: %v", err)
	}
	if _, err := first.AckClaim(ctx, time.Minute); !errors.Is(err, ErrStaleLease) {
		t.Fatalf("stale ack-claim: %v", err)
	}
	mustOK(t, second.Ack(ctx))
	if st := must(q.Stats(ctx))(t); st.FailedTotal != 1 || st.AckedTotal != 1 {
		t.Fatalf("stats: %+v", st)
	}
}

func TestExtendKeepsLease(t *testing.T) {
	ctx := ctxT(t)
	q := newQueue(t, dial(t))
	must(q.Enqueue(ctx, "g", nil))(t)
	job := must(q.Claim(ctx, 200*time.Millisecond))(t)
	until := must(job.Extend(ctx, 5*time.Second))(t)
	if !until.After(job.LeaseUntil) {
		t.Fatalf("extended deadline %v not after %v", until, job.LeaseUntil)
	}
	time.Sleep(400 * time.Millisecond)
	if _, err := q.Claim(ctx, time.Minute); !errors.Is(err, ErrEmpty) {
		t.Fatalf("extended job was redelivered: %v", err)
	}
	mustOK(t, job.Ack(ctx))
}

func TestAckClaimChain(t *testing.T) {
	ctx := ctxT(t)
	q := newQueue(t, dial(t))
	for i := 0; i < 5; i++ {
		must(q.Enqueue(ctx, "g", []byte{byte(i)}))(t)
	}
	job := must(q.Claim(ctx, time.Minute))(t)
	n := 1
	for {
		next, err := job.AckClaim(ctx, time.Minute)
		if errors.Is(err, ErrEmpty) {
			break
		}
		mustOK(t, err)
		if next.Payload[0] != byte(n) {
			t.Fatalf("chain order: got %d want %d", next.Payload[0], n)
		}
		job = next
		n++
	}
	if n != 5 {
		t.Fatalf("chain served %d jobs, want 5", n)
	}
	if st := must(q.Stats(ctx))(t); st.AckedTotal != 5 || st.Pending != 0 || st.Leased != 0 {
		t.Fatalf("stats after the chain: %+v", st)
	}
}

func TestAckManySettlesAWClaim(t *testing.T) {
	ctx := ctxT(t)
	q := newQueue(t, dial(t))
	for i := 0; i < 5; i++ {
		must(q.Enqueue(ctx, "heavy", []byte{byte(i)}))(t)
	}
	mustOK(t, q.Weight(ctx, "heavy", 4))
	jobs := must(q.WClaim(ctx, time.Minute, 10))(t)
	if len(jobs) != 4 {
		t.Fatalf("wclaim gave %d jobs, want 4", len(jobs))
	}
	// A copy of job 2 whose token is not its delivery's: refused, unchanged.
	stale := *jobs[2]
	stale.Token++
	refused := must(q.AckMany(ctx, []*Job{jobs[0], jobs[1], &stale}))(t)
	if len(refused) != 1 || refused[0] != &stale {
		t.Fatalf("refused = %v, want only the stale copy", refused)
	}
	if st := must(q.Stats(ctx))(t); st.AckedTotal != 2 || st.Leased != 2 {
		t.Fatalf("stats after a partial AckMany: %+v", st)
	}
	if refused := must(q.AckMany(ctx, jobs[2:]))(t); len(refused) != 0 {
		t.Fatalf("second AckMany refused %d jobs", len(refused))
	}
	if st := must(q.Stats(ctx))(t); st.AckedTotal != 4 || st.Leased != 0 || st.Pending != 1 {
		t.Fatalf("stats after AckMany: %+v", st)
	}
}
