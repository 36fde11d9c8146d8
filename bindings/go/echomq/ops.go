package echomq

import (
	"context"
	"strconv"
	"time"

	"github.com/echomq/echomq/bindings/go/internal/capi"
)

// JobState is where a job is: in its lane, leased, delayed or dead.
type JobState int

const (
	StatePending JobState = 1 // waiting in its lane
	StateLeased  JobState = 2 // held by a worker until its lease deadline
	StateDelayed JobState = 3 // waiting for its due time (delay, retry backoff)
	StateDead    JobState = 4 // dead-lettered
	// StateCompleted: acked and retained (Queue.SetRetention, WithKeep).
	StateCompleted JobState = 5
)

func (s JobState) String() string {
	switch s {
	case StatePending:
		return "pending"
	case StateLeased:
		return "leased"
	case StateDelayed:
		return "delayed"
	case StateDead:
		return "dead"
	case StateCompleted:
		return "completed"
	case StateWaiting:
		return "waiting"
	}
	return "JobState(" + strconv.Itoa(int(s)) + ")"
}

// WithKey gives the job an idempotency key (1..256 bytes): when the queue
// saw the same key within the window, nothing is enqueued and Enqueue
// returns the first job's id with ErrDuplicate (errors.Is). In a batch the
// key applies to every job: give KeyedJob.Key to EnqueueBatchDedup instead.
func WithKey(key string) EnqueueOption {
	return func(c *enqueueConfig) { c.key = key; c.keyed = true }
}

// WithDedupWindow sets how long idempotency keys are remembered (default
// 24 h, at most 7 days).
func WithDedupWindow(d time.Duration) EnqueueOption {
	return func(c *enqueueConfig) { c.window = d }
}

// ErrDuplicate is what Enqueue returns, with the first job's id, when its
// idempotency key was seen within the window: nothing was enqueued. It is
// not a failure; test for it with errors.Is.
var ErrDuplicate = &Error{Code: CodeDuplicate, Msg: "the idempotency key was seen: the first job's id is returned"}

// Job looks a job up by id, wherever it is: its State, lane, payload,
// Token (the fencing token of its latest delivery, 0 before the first),
// Attempt and MaxAttempts, times and last error. A read-only
// call. It returns ErrNotFound when there is no such job (acked, deleted,
// or never enqueued).
func (q *Queue) Job(ctx context.Context, id uint64) (*Job, error) {
	if err := q.checkNames(); err != nil {
		return nil, err
	}
	var out [1]uint64
	_, err := q.c.do(ctx, func(h capi.Client) int { return capi.Get_job(h, q.name, id, out[:]) })
	job := takeJob(q, out[0]) // freed on every path
	if err != nil {
		return nil, err
	}
	return job, nil
}

// Delete deletes a pending, delayed or dead job; its lane's counts and
// ring place stay right. It returns ErrLeased while a worker holds the job
// (nothing changed) and ErrNotFound for no such job.
func (q *Queue) Delete(ctx context.Context, id uint64) error {
	if err := q.checkNames(); err != nil {
		return err
	}
	_, err := q.c.do(ctx, func(h capi.Client) int { return capi.Delete_job(h, q.name, id) })
	return err
}

// PurgeLane deletes every waiting (pending or delayed) job of lane group in
// bounded steps, one round trip each (up to 10,000 jobs); leased jobs run
// on and dead jobs stay. The lane's weight, limit, rate, cap and pause stay
// unless clearSettings. It returns how many jobs were deleted.
func (q *Queue) PurgeLane(ctx context.Context, group string, clearSettings bool) (uint64, error) {
	return q.purgeLane(ctx, group, clearSettings, capi.ECHOMQ_PURGE_MAX)
}

func (q *Queue) purgeLane(ctx context.Context, group string, clearSettings bool, step int) (uint64, error) {
	if err := q.checkNames(group); err != nil {
		return 0, err
	}
	clear := 0
	if clearSettings {
		clear = 1
	}
	var total uint64
	nums := make([]int64, 3) // cursor, removed, more
	for {
		if _, err := q.c.do(ctx, func(h capi.Client) int {
			return capi.Purge_lane(h, q.name, group, uint(step), clear, nums)
		}); err != nil {
			return total, err
		}
		total += uint64(nums[1])
		if nums[2] == 0 {
			return total, nil
		}
	}
}

// Queues lists the queues on the server the client is connected to, in
// byte order (a SCAN walk: an operator's call). In a cluster it lists the
// queues of the connected node. A queue is listed once it was first
// enqueued to.
func (c *Client) Queues(ctx context.Context) ([]string, error) {
	var out [1]uint64
	_, err := c.do(ctx, func(h capi.Client) int { return capi.Queues(h, out[:]) })
	names := takeReport(out[0])
	if err != nil {
		return nil, err
	}
	return names, nil
}
