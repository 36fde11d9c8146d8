package echomq

import (
	"context"
	"time"

	"github.com/echomq/echomq/bindings/go/internal/capi"
)

// Job is one delivery of a job: a snapshot copied out of the C library, so
// it holds no C memory and needs no freeing.
type Job struct {
	ID          uint64
	Group       string // the lane
	Payload     []byte
	Token       uint64 // fencing token of this delivery: new for every delivery
	MaxAttempts uint32
	LeaseUntil  time.Time // server clock; zero if not leased
	EnqueuedAt  time.Time // server clock
	DeadAt      time.Time // server clock; zero unless dead-lettered
	LastError   string    // reason of the last failure, "" if none
	// Attempt is which attempt of its current budget this delivery is,
	// 1..MaxAttempts (a dead job: the attempts of its last budget). A
	// redrive gives a fresh budget; a job given back unstarted by a stopping
	// worker used no attempt. The token is not an attempt count.
	Attempt uint32
	State   JobState  // where the job is (Queue.Job); StateLeased for claims
	DueAt   time.Time // server clock; when a delayed job falls due, else zero
	// Outcomes (Queue.Job and Queue.Wait only): the first delivery, the
	// completion or death (zero if none), the last progress reported, and
	// a retained completed job's result (it keeps no payload).
	StartedAt  time.Time
	FinishedAt time.Time
	Progress   []byte
	Result     []byte

	// ResultDropped says why a completed job keeps no result ("" when it
	// kept one, or had none): its result could not be encoded, or was over
	// 65,536 bytes (Worker.Serializer). The job completed all the same.
	ResultDropped string

	// Name and Headers: what the job was enqueued with (WithName,
	// WithHeaders; "" and nil when none). Claims, Queue.Job and Queue.Dead
	// show them; a completed job's outcome keeps neither.
	Name    string
	Headers map[string]string

	q      *Queue
	result []byte // SetResult: reported with the job's success by a Worker
	value  any    // SetResultValue: encoded by the Worker's Serializer
	cost   uint64 // ReportCost: units charged in cost mode, 0 = the measured time
}

// SetResult sets the result a Worker reports with this job's success (at
// most 65,536 bytes, ECHOMQ_RESULT_MAX; a larger one is dropped, the job
// completes all the same): call it in the handler before returning nil. It
// is kept when the job's outcome is retained.
func (j *Job) SetResult(b []byte) { j.result, j.value = append([]byte(nil), b...), nil }

// SetResultValue sets a value the Worker encodes with its Serializer
// (default JSON) into the job's result when the handler returns nil. A
// value that cannot be encoded drops the result, never the job's success.
func (j *Job) SetResultValue(v any) { j.result, j.value = nil, v }

// AckResult acknowledges the job with a result, kept with its outcome
// when the outcome is retained (Queue.SetRetention, WithKeep, or a
// waiter); otherwise it is dropped. ErrTooLarge over ECHOMQ_RESULT_MAX.
func (j *Job) AckResult(ctx context.Context, result []byte) error {
	q := j.q
	if err := q.checkNames(); err != nil {
		return err
	}
	_, err := q.c.do(ctx, func(h capi.Client) int { return capi.Ack_result(h, q.name, j.ID, j.Token, result) })
	return err
}

// ReportProgress records the job's progress (at most 1,024 bytes,
// ECHOMQ_PROGRESS_MAX), fenced by the token like Extend: Queue.Job shows
// it and it is a "progress" event.
func (j *Job) ReportProgress(ctx context.Context, value []byte) error {
	q := j.q
	if err := q.checkNames(); err != nil {
		return err
	}
	_, err := q.c.do(ctx, func(h capi.Client) int { return capi.Progress(h, q.name, j.ID, j.Token, value) })
	return err
}

// ReportCost says what this job's work cost, in units of your own (tokens,
// bytes, calls), from a Worker's Handler: in a queue's cost mode its lane is
// charged that instead of the handler time the engine measures (µs). The
// last call counts; 0 goes back to the measured time. A job claimed by hand
// is charged with Queue.Charge.
func (j *Job) ReportCost(units uint64) { j.cost = units }

// Queue is the queue the job came from.
func (j *Job) Queue() *Queue { return j.q }

// Ack acknowledges the job: it is done and deleted. It fails with
// ErrStaleLease when this delivery no longer holds the lease (it expired
// and the job was delivered again, or it was already settled).
func (j *Job) Ack(ctx context.Context) error {
	q := j.q
	if err := q.checkNames(); err != nil {
		return err
	}
	_, err := q.c.do(ctx, func(h capi.Client) int { return capi.Ack(h, q.name, j.ID, j.Token) })
	return err
}

// AckMany acknowledges many jobs of this queue (typically the jobs of one
// WClaim) in one round trip per 10,000 jobs. Each job is settled on its
// own: the returned slice holds the jobs whose ack was refused (their lease
// was lost, or they no longer exist), unchanged; it is empty when every job
// was acked. The error reports a call that did not go through (or, with
// WithDurability, ErrUnconfirmed: the acks went through, unconfirmed).
func (q *Queue) AckMany(ctx context.Context, jobs []*Job) ([]*Job, error) {
	if err := q.checkNames(); err != nil {
		return nil, err
	}
	var refused []*Job
	var unconfirmed error // ErrUnconfirmed of a chunk: returned with the whole result
	for start := 0; start < len(jobs); start += wclaimMax {
		chunk := jobs[start:min(len(jobs), start+wclaimMax)]
		ids := make([]uint64, len(chunk))
		tokens := make([]uint64, len(chunk))
		statuses := make([]int64, len(chunk))
		for i, j := range chunk {
			ids[i], tokens[i] = j.ID, j.Token
		}
		_, err := q.c.do(ctx, func(h capi.Client) int {
			return capi.Ack_many(h, q.name, ids, tokens, statuses)
		})
		if failed(err) {
			return refused, err
		}
		if err != nil {
			unconfirmed = err
		}
		for i, st := range statuses {
			if st != 0 {
				refused = append(refused, chunk[i])
			}
		}
	}
	return refused, unconfirmed
}

// AckClaim acknowledges the job and claims the next one in the same round
// trip, as Claim would. On ErrEmpty the ack happened and there was nothing
// to claim. If the ack is refused (ErrStaleLease, ErrNotFound), nothing is
// claimed.
func (j *Job) AckClaim(ctx context.Context, lease time.Duration) (*Job, error) {
	q := j.q
	ms, err := q.leaseOf(lease)
	if err != nil {
		return nil, err
	}
	var out [1]uint64
	rc, err := q.c.do(ctx, func(h capi.Client) int {
		return capi.Ack_claim(h, q.name, j.ID, j.Token, ms, out[:])
	})
	return q.claimed(rc, err, out[0])
}

// FailOutcome says what Fail did with the job.
type FailOutcome int

// Outcomes of Fail, as in echomq.h.
const (
	Retried FailOutcome = 1 // back at its lane's mint position
	Delayed FailOutcome = 2 // waiting in the delayed set for its retry
	Dead    FailOutcome = 3 // out of attempts: dead-lettered
)

func (o FailOutcome) String() string {
	switch o {
	case Retried:
		return "retried"
	case Delayed:
		return "delayed"
	case Dead:
		return "dead"
	}
	return "unknown"
}

// Backoff as the retryIn of Fail asks for exponential backoff:
// 1 s * 2^(attempt-1), at most 1 h.
const Backoff time.Duration = -1

// Fail fails this attempt with a reason (cut at its first NUL byte and at
// 4096 bytes). retryIn 0 puts the job straight back in its lane, > 0 after
// that delay, Backoff after an exponential delay (RetryNow is the same as
// 0). A job that has used its
// max attempts is dead-lettered instead.
func (j *Job) Fail(ctx context.Context, reason string, retryIn time.Duration) (FailOutcome, error) {
	q := j.q
	if err := q.checkNames(); err != nil {
		return 0, err
	}
	delay, err := retryMS("the retry delay", retryIn)
	if err != nil {
		return 0, err
	}
	var out [1]int64
	_, err = q.c.do(ctx, func(h capi.Client) int {
		return capi.Fail(h, q.name, j.ID, j.Token, cutAtNUL(reason), delay, out[:])
	})
	if failed(err) {
		return 0, err
	}
	return FailOutcome(out[0]), err
}

// Extend sets the lease to server now + d and returns the new deadline.
// It fails with ErrStaleLease when the lease was already lost. The Job
// itself is not changed (it may be read by other goroutines meanwhile).
func (j *Job) Extend(ctx context.Context, d time.Duration) (time.Time, error) {
	q := j.q
	ms, err := q.leaseOf(d)
	if err != nil {
		return time.Time{}, err
	}
	var out [1]int64
	_, err = q.c.do(ctx, func(h capi.Client) int {
		return capi.Extend(h, q.name, j.ID, j.Token, ms, out[:])
	})
	if failed(err) {
		return time.Time{}, err
	}
	return msTime(out[0]), err
}

func cutAtNUL(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return s[:i]
		}
	}
	return s
}
