package echomq

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Handler processes one job. Returning nil acks the job; returning an
// error fails it (see Worker.RetryIn). A panic counts as an error.
type Handler func(ctx context.Context, job *Job) error

// Worker runs a Handler over a queue with Concurrency goroutines, each with
// its own Client (one connection each).
//
// Each goroutine waits for work with a blocking claim (no polling), runs the
// handler, then acks the job and claims the next one in one round trip
// (AckClaim). With Batch > 1 it claims up to Batch jobs of one lane per turn
// of the ring with WClaim instead, so that lane weights apply; the jobs of a
// turn are handled one after the other and acked one by one.
//
// Leases: while a goroutine holds jobs (claimed, not yet settled), their
// leases are extended every Lease/2, so a handler may run longer than the
// lease. If a lease is lost anyway, the handler's context is cancelled with
// a cause wrapping ErrStaleLease, and a held job whose lease is lost before
// its turn is skipped (it has been delivered again elsewhere).
//
// Stopping: when the context given to Run is cancelled, the goroutines stop
// claiming, let the handlers in progress finish and settle the jobs they
// hold (the handlers' context is not the Run context, so they are not cut
// short), then Run returns. No job is lost: every job a goroutine claimed
// is settled, and a blocking claim interrupted by the stop claims nothing.
type Worker struct {
	URL         string        // server URL, as for Dial
	Queue       string        // queue name
	Handler     Handler       // required
	Concurrency int           // goroutines (and connections); default 1
	Lease       time.Duration // lease per delivery; default 30 s
	// Batch > 1 claims up to Batch jobs of one lane per turn (WClaim), so
	// that lane weights take effect. Default 1: one job per lane per turn.
	Batch int
	// RetryIn is the retry delay of a failed job: 0 = straight back to its
	// lane, > 0 = after that delay, Backoff = exponential.
	RetryIn     time.Duration
	DialOptions []DialOption
	// OnError, if set, receives errors that do not stop the worker: a lost
	// lease, a refused ack, transient connection errors (retried). It is
	// called from the worker's goroutines.
	OnError func(error)
}

// Run processes jobs until ctx is cancelled or a fatal error (invalid
// settings, permission denied) stops every goroutine. It returns nil after
// a stop by ctx, else the fatal error.
func (w *Worker) Run(ctx context.Context) error {
	if w.Handler == nil {
		return invalid("Worker.Handler is nil")
	}
	n := w.Concurrency
	if n <= 0 {
		n = 1
	}
	clients := make([]*Client, 0, n)
	defer func() {
		for _, c := range clients {
			c.Close()
		}
	}()
	for i := 0; i < n; i++ {
		c, err := Dial(ctx, w.URL, w.DialOptions...)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		clients = append(clients, c)
	}

	ctx, stop := context.WithCancel(ctx)
	defer stop()
	var (
		wg       sync.WaitGroup
		fatalMu  sync.Mutex
		fatalErr error
	)
	for _, c := range clients {
		wg.Add(1)
		go func(q *Queue) {
			defer wg.Done()
			if err := w.loop(ctx, q); err != nil {
				fatalMu.Lock()
				if fatalErr == nil {
					fatalErr = err
				}
				fatalMu.Unlock()
				stop()
			}
		}(c.Queue(w.Queue))
	}
	wg.Wait()
	return fatalErr
}

func (w *Worker) lease() time.Duration {
	if w.Lease <= 0 {
		return 30 * time.Second
	}
	return w.Lease
}

func (w *Worker) batch() int {
	if w.Batch < 1 {
		return 1
	}
	return min(w.Batch, wclaimMax)
}

// loop is one goroutine: claim, handle, settle, until ctx is done.
func (w *Worker) loop(ctx context.Context, q *Queue) error {
	settle := context.WithoutCancel(ctx) // settling a job must not be cut short
	lease := w.lease()
	pause := newRetryPause()
	var next *Job // claimed by the last AckClaim
	for {
		var jobs []*Job
		if next != nil {
			jobs, next = []*Job{next}, nil
		} else {
			if ctx.Err() != nil {
				return nil
			}
			js, err := w.claim(ctx, q, lease)
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				if fatal(err) {
					return err
				}
				w.report(err)
				pause.wait(ctx)
				continue
			}
			pause.reset()
			jobs = js
		}

		ext := w.startExtender(settle, jobs)
		for i, job := range jobs {
			ran, herr := w.handle(settle, ext, i)
			if !ran {
				continue // lease lost before its turn
			}
			last := i == len(jobs)-1
			switch {
			case herr != nil:
				if _, err := job.Fail(settle, herr.Error(), w.RetryIn); err != nil {
					w.report(fmt.Errorf("echomq: fail job %d: %w", job.ID, err))
				}
			case last && w.batch() == 1 && ctx.Err() == nil:
				n, err := job.AckClaim(settle, lease)
				if err != nil && !errors.Is(err, ErrEmpty) {
					w.report(fmt.Errorf("echomq: ack job %d: %w", job.ID, err))
				}
				next = n
			default:
				if err := job.Ack(settle); err != nil {
					w.report(fmt.Errorf("echomq: ack job %d: %w", job.ID, err))
				}
			}
			ext.settled(i)
		}
		ext.stop()
	}
}

// claim takes the next jobs: a weighted turn with Batch > 1, falling back to
// a blocking claim of one job when nothing is ready.
func (w *Worker) claim(ctx context.Context, q *Queue, lease time.Duration) ([]*Job, error) {
	if b := w.batch(); b > 1 {
		jobs, err := q.WClaim(ctx, lease, b)
		if err == nil {
			return jobs, nil
		}
		if !errors.Is(err, ErrEmpty) {
			return nil, err
		}
	}
	j, err := q.BClaim(ctx, lease)
	if err != nil {
		return nil, err
	}
	return []*Job{j}, nil
}

// handle runs the handler on held job i; ran is false when the job's lease
// was lost before its turn, so it was not handed to the handler.
func (w *Worker) handle(settle context.Context, ext *extender, i int) (ran bool, err error) {
	hctx, cancel := context.WithCancelCause(settle)
	defer cancel(nil)
	if !ext.begin(i, cancel) {
		return false, nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("echomq: handler panic: %v", r)
		}
	}()
	ran = true // before the call: a panic must still count as having run
	return ran, w.Handler(hctx, ext.held[i].job)
}

// extender renews the leases of the jobs a goroutine holds every Lease/2,
// from a timer, so a short handler costs no goroutine and no round trip.
type extender struct {
	mu      sync.Mutex
	held    []heldJob
	stopped bool
	t       *time.Timer
}

type heldJob struct {
	job     *Job
	lost    context.CancelCauseFunc // set while its handler runs
	gone    bool                    // the lease was lost
	settled bool
}

func (w *Worker) startExtender(ctx context.Context, jobs []*Job) *extender {
	lease := w.lease()
	every := max(lease/2, time.Millisecond)
	e := &extender{held: make([]heldJob, len(jobs))}
	for i, j := range jobs {
		e.held[i].job = j
	}
	var tick func()
	tick = func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		if e.stopped {
			return
		}
		for i := range e.held {
			h := &e.held[i]
			if h.settled || h.gone {
				continue
			}
			_, err := h.job.Extend(ctx, lease)
			switch {
			case errors.Is(err, ErrStaleLease) || errors.Is(err, ErrNotFound):
				h.gone = true
				lostErr := fmt.Errorf("echomq: lease of job %d lost: %w", h.job.ID, err)
				if h.lost != nil {
					h.lost(lostErr)
				}
				w.report(lostErr)
			case err != nil:
				w.report(fmt.Errorf("echomq: extend job %d: %w", h.job.ID, err))
			}
		}
		e.t.Reset(every)
	}
	e.mu.Lock()
	e.t = time.AfterFunc(every, tick)
	e.mu.Unlock()
	return e
}

// begin marks held job i as handled now, with cancel to call if its lease
// is lost; false if it is already lost.
func (e *extender) begin(i int, cancel context.CancelCauseFunc) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.held[i].gone {
		return false
	}
	e.held[i].lost = cancel
	return true
}

// settled stops renewing job i.
func (e *extender) settled(i int) {
	e.mu.Lock()
	e.held[i].settled = true
	e.held[i].lost = nil
	e.mu.Unlock()
}

// stop ends the renewals; it waits for one in progress.
func (e *extender) stop() {
	e.mu.Lock()
	e.stopped = true
	e.t.Stop()
	e.mu.Unlock()
}

func (w *Worker) report(err error) {
	if w.OnError != nil && err != nil {
		w.OnError(err)
	}
}

// fatal errors would fail again on every retry.
func fatal(err error) bool {
	return errors.Is(err, ErrInvalid) || errors.Is(err, ErrNoPerm) ||
		errors.Is(err, ErrProtocol) || errors.Is(err, ErrClosed)
}

// retryPause spaces out retries after transient errors: 50 ms doubling up
// to 2 s, reset by a success.
type retryPause struct{ d time.Duration }

func newRetryPause() *retryPause { return &retryPause{d: 50 * time.Millisecond} }

func (p *retryPause) reset() { p.d = 50 * time.Millisecond }

func (p *retryPause) wait(ctx context.Context) {
	t := time.NewTimer(p.d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
	if p.d *= 2; p.d > 2*time.Second {
		p.d = 2 * time.Second
	}
}
