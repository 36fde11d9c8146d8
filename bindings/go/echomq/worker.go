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
// Each goroutine claims with a blocking claim (no polling), runs the
// handler, then acks and claims the next job in one round trip (AckClaim).
// While a handler runs longer than half the lease, the lease is extended
// every Lease/2; if the lease is lost anyway, the handler's context is
// cancelled with cause ErrStaleLease.
//
// Stopping: when the context given to Run is cancelled, the goroutines stop
// claiming, let the handlers in progress finish (their context is not the
// Run context, so they are not cut short) and settle those jobs; then Run
// returns. No job is lost: a job is either settled or still leased, and a
// blocking claim interrupted by the stop leaves at most a lease to expire.
type Worker struct {
	URL         string        // server URL, as for Dial
	Queue       string        // queue name
	Handler     Handler       // required
	Concurrency int           // goroutines (and connections); default 1
	Lease       time.Duration // lease per delivery; default 30 s
	// RetryIn is the retry delay of a failed job: 0 = straight back to its
	// lane, > 0 = after that delay, Backoff = exponential.
	RetryIn     time.Duration
	DialOptions []DialOption
	// OnError, if set, receives errors that do not stop the worker: a lost
	// lease, a refused ack, transient connection errors (retried).
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

// loop is one goroutine: claim, handle, settle, until ctx is done.
func (w *Worker) loop(ctx context.Context, q *Queue) error {
	settle := context.WithoutCancel(ctx) // settling a job must not be cut short
	lease := w.lease()
	pause := newRetryPause()
	var job *Job
	for {
		if job == nil {
			j, err := q.BClaim(ctx, lease)
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
			job = j
		}

		herr := w.handle(settle, job)
		if herr != nil {
			if _, err := job.Fail(settle, herr.Error(), w.RetryIn); err != nil {
				w.report(fmt.Errorf("echomq: fail job %d: %w", job.ID, err))
			}
			job = nil
			continue
		}
		if ctx.Err() != nil {
			if err := job.Ack(settle); err != nil {
				w.report(fmt.Errorf("echomq: ack job %d: %w", job.ID, err))
			}
			return nil
		}
		next, err := job.AckClaim(settle, lease)
		if err != nil && !errors.Is(err, ErrEmpty) {
			w.report(fmt.Errorf("echomq: ack job %d: %w", job.ID, err))
		}
		job = next
	}
}

// handle runs the handler on job, extending the lease while it runs.
func (w *Worker) handle(settle context.Context, job *Job) (err error) {
	hctx, cancel := context.WithCancelCause(settle)
	defer cancel(nil)
	ext := w.startExtender(settle, job, cancel)
	defer ext.stop()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("echomq: handler panic: %v", r)
		}
	}()
	return w.Handler(hctx, job)
}

// extender renews a lease every Lease/2 from a timer, so a short handler
// costs no goroutine and no round trip.
type extender struct {
	mu      sync.Mutex
	stopped bool
	t       *time.Timer
}

func (w *Worker) startExtender(ctx context.Context, job *Job, lost context.CancelCauseFunc) *extender {
	lease := w.lease()
	every := lease / 2
	if every < time.Millisecond {
		every = time.Millisecond
	}
	e := &extender{}
	var tick func()
	tick = func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		if e.stopped {
			return
		}
		_, err := job.Extend(ctx, lease)
		switch {
		case errors.Is(err, ErrStaleLease) || errors.Is(err, ErrNotFound):
			lost(fmt.Errorf("echomq: lease of job %d lost: %w", job.ID, err))
			w.report(err)
			return
		case err != nil:
			w.report(fmt.Errorf("echomq: extend job %d: %w", job.ID, err))
		}
		e.t.Reset(every)
	}
	e.mu.Lock()
	e.t = time.AfterFunc(every, tick)
	e.mu.Unlock()
	return e
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
