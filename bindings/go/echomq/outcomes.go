package echomq

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/echomq/echomq/bindings/go/internal/capi"
)

// Outcomes (docs/operations.md "Outcomes"): retention of completed jobs
// with their results, waiting for a job, the event stream. All opt-in.

// WithKeep gives the job a retention of its own once it completes, instead
// of the queue's (SetRetention): kept for d after it completes (0 = no time
// bound) and/or while among the last `last` jobs completed with a
// retention (0 = no count bound).
func WithKeep(d time.Duration, last uint64) EnqueueOption {
	return func(c *enqueueConfig) { c.keep = d; c.keepLast = last }
}

// SetRetention keeps the outcome (state, times, attempts, lane, result) of
// jobs that complete from now on, for keep and/or while among the last
// `last` (at least one; both bound it when both are set). ErrInvalid for
// neither, or a negative time: nothing is sent.
func (q *Queue) SetRetention(ctx context.Context, keep time.Duration, last uint64) error {
	if err := q.checkNames(); err != nil {
		return err
	}
	ms, err := durationMS("SetRetention: the time", keep, 0, keepMax)
	if err != nil {
		return err
	}
	_, err = q.c.do(ctx, func(h capi.Client) int { return capi.Set_retention(h, q.name, ms, last) })
	return err
}

// ClearRetention stops retaining outcomes (those kept so far age out).
func (q *Queue) ClearRetention(ctx context.Context) error {
	if err := q.checkNames(); err != nil {
		return err
	}
	_, err := q.c.do(ctx, func(h capi.Client) int { return capi.Clear_retention(h, q.name) })
	return err
}

// SetEvents turns the queue's event stream on, kept near maxLen entries;
// with enqueued, every enqueue is an event too (the costly one).
func (q *Queue) SetEvents(ctx context.Context, maxLen uint64, enqueued bool) error {
	if err := q.checkNames(); err != nil {
		return err
	}
	flags := 0
	if enqueued {
		flags = capi.ECHOMQ_EVENTS_ENQUEUED
	}
	_, err := q.c.do(ctx, func(h capi.Client) int { return capi.Set_events(h, q.name, maxLen, flags) })
	return err
}

// ClearEvents turns the event stream off.
func (q *Queue) ClearEvents(ctx context.Context) error {
	if err := q.checkNames(); err != nil {
		return err
	}
	_, err := q.c.do(ctx, func(h capi.Client) int { return capi.Clear_events(h, q.name) })
	return err
}

// Wait blocks on the server (no polling) until job id completes or dies,
// up to timeout, and returns what became of it (State StateCompleted with
// its Result, or StateDead); at once when it already has. ErrPending when it
// had not in time, ErrNotFound for no such job; the end of ctx interrupts
// the wait. Waiting works without a retention only for a waiter that began
// before the job finished.
func (q *Queue) Wait(ctx context.Context, id uint64, timeout time.Duration) (*Job, error) {
	if err := q.checkNames(); err != nil {
		return nil, err
	}
	if _, err := durationMS("Wait: the timeout", timeout, 0, waitMax); err != nil {
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		if rem := time.Until(dl); rem < timeout {
			timeout = max(rem, 0)
		}
	}
	var out [1]uint64
	rc, err := q.c.doBlocking(ctx, func(h capi.Client) int {
		return capi.Wait_job(h, q.name, id, ceilMS(timeout), out[:])
	})
	job := takeJob(q, out[0])
	var ce *ctxError
	if errors.As(err, &ce) {
		return nil, ce.ctx
	}
	if err != nil {
		return nil, err
	}
	if Code(rc) == CodePending || job == nil {
		return nil, &Error{Code: CodePending, Msg: "job " + strconv.FormatUint(id, 10) + " had not finished in time"}
	}
	return job, nil
}

// Event is one entry of a queue's event stream (the format is public:
// docs/keys.md "Events").
type Event struct {
	StreamID string            // pass it as `after` to go on
	Type     string            // enqueued, claimed, completed, failed, dead, redriven, deleted, purged, progress, setting
	JobID    uint64            // 0 for lane and queue events
	Lane     string            // "" for queue events
	Attempt  uint32            // of the delivery it is about
	Time     time.Time         // server clock
	Fields   map[string][]byte // every field as sent, with the type's own (reason, retry, progress, ...)
}

// ReadEvents returns up to count (1..10,000) entries after stream id
// `after` ("0" = the oldest kept, "$" = only new ones), waiting up to block
// (0 = not at all) for one to come; the end of ctx interrupts the wait.
func (q *Queue) ReadEvents(ctx context.Context, after string, count int, block time.Duration) ([]Event, error) {
	if err := q.checkNames(); err != nil {
		return nil, err
	}
	if hasNUL(after) {
		return nil, invalid("stream id contains a NUL byte")
	}
	blockMs, err := durationMS("ReadEvents: the wait", block, 0, waitMax)
	if err != nil {
		return nil, err
	}
	var out [1]uint64
	_, err = q.c.doBlocking(ctx, func(h capi.Client) int {
		return capi.Events_read(h, q.name, after, int64(count), blockMs, out[:])
	})
	events := takeEvents(out[0])
	var ce *ctxError
	if errors.As(err, &ce) {
		return nil, ce.ctx
	}
	return events, err
}

// Events sends the stream's entries after `after` on the returned channel,
// which is closed at the end (without follow: when the stream holds no
// more; with follow: when ctx ends) or at an error, which the function
// returned then reports (nil at a normal end). A following read holds the
// client while it waits (up to a second at a time): give it a Client of its
// own.
func (q *Queue) Events(ctx context.Context, after string, follow bool) (<-chan Event, func() error) {
	ch := make(chan Event, 64)
	done := make(chan struct{})
	var failure error
	go func() {
		defer close(done)
		defer close(ch)
		block := time.Duration(0)
		if follow {
			block = time.Second
		}
		for {
			batch, err := q.ReadEvents(ctx, after, 1000, block)
			if err != nil {
				if !(follow && ctx.Err() != nil) {
					failure = err
				}
				return
			}
			for _, e := range batch {
				select {
				case ch <- e:
				case <-ctx.Done():
					return
				}
				after = e.StreamID
			}
			if len(batch) == 0 && !follow {
				return
			}
		}
	}()
	return ch, func() error { <-done; return failure }
}

// takeEvents copies and frees an event list given by its address (0 = none).
func takeEvents(addr uint64) []Event {
	if addr == 0 {
		return nil
	}
	live.add(&live.lists, 1)
	l := capi.SwigcptrEventList(uintptr(addr))
	n := capi.Event_list_count(l)
	out := make([]Event, 0, n)
	for i := int64(0); i < n; i++ {
		e := Event{StreamID: capi.Event_list_id(l, i), Fields: map[string][]byte{}}
		for k := int64(0); k < capi.Event_list_nfields(l, i); k++ {
			v := make([]byte, capi.Event_value_len(l, i, k))
			if len(v) > 0 {
				capi.Event_value_copy(l, i, k, v)
			}
			e.Fields[capi.Event_list_name(l, i, k)] = v
		}
		e.Type = string(e.Fields["type"])
		e.JobID, _ = strconv.ParseUint(string(e.Fields["id"]), 10, 64)
		e.Lane = string(e.Fields["lane"])
		a, _ := strconv.ParseUint(string(e.Fields["attempt"]), 10, 32)
		e.Attempt = uint32(a)
		ms, _ := strconv.ParseInt(string(e.Fields["time"]), 10, 64)
		e.Time = msTime(ms)
		out = append(out, e)
	}
	capi.Event_list_free(l)
	live.add(&live.lists, -1)
	return out
}
