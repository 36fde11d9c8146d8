package echomq

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/echomq/echomq/bindings/go/internal/capi"
)

// Handler processes one job. Returning nil acks the job; returning an
// error fails it (retried as Worker.RetryIn says, or dead-lettered when out
// of attempts); returning an error wrapped by Discard dead-letters it now.
// A panic counts as an error. The job is settled by the Worker's engine:
// its Queue() has no Client, so Ack, Fail and Extend on it return
// ErrClosed.
type Handler func(ctx context.Context, job *Job) error

// Defaults of a Worker, the same as the Python Worker's.
const (
	DefaultConcurrency  = 4                // handler goroutines
	DefaultLease        = 30 * time.Second // the engine's default lease
	DefaultDrainTimeout = 30 * time.Second // wait for running handlers at a stop
)

// NoPrefetch as Worker.Prefetch claims no job ahead of the handlers.
const NoPrefetch = -1

// FixedPrefetch as Worker.TargetWait turns latency-bounded prefetch off:
// every claim fills the free slots.
const FixedPrefetch time.Duration = -1

// RetryNow as Worker.RetryIn (or the retryIn of Job.Fail) puts a failed job
// straight back in its lane.
const RetryNow time.Duration = -2

// ErrDiscard matches (errors.Is) every error made by Discard.
var ErrDiscard = errors.New("echomq: discard the job")

// DiscardError is a handler error that dead-letters its job at once,
// whatever attempts it has left: the job can never succeed. Make one with
// Discard; find one with errors.As.
type DiscardError struct{ Err error }

func (e *DiscardError) Error() string {
	if e.Err == nil {
		return "discarded"
	}
	return e.Err.Error()
}

// Unwrap gives the reason.
func (e *DiscardError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrDiscard) hold.
func (e *DiscardError) Is(target error) bool { return target == ErrDiscard }

// Discard is the "don't retry" failure: it wraps a handler error so that
// the Worker dead-letters the job now instead of retrying it (bad input, a
// job that can never succeed). The
// reason kept with the dead job is err's text. Wrapping the result again
// (fmt.Errorf with %w) keeps it a discard.
func Discard(err error) error { return &DiscardError{Err: err} }

// Worker runs a Handler over a queue: a thin layer over libechomq's worker
// engine (echomq_worker_*), which does the loop once for every language.
//
// The engine claims jobs in batches fused with the settlement of finished
// ones (one round trip per batch), holds Slots jobs at once (running, or
// claimed ahead), extends the leases of running jobs past half their
// length, sleeps on the server when the queue is empty (no polling) and
// gives prefetched, unstarted jobs back to their lanes at once when it
// stops. The Worker runs Concurrency goroutines that take a job from the
// engine, call the Handler and report the result.
//
// Stopping: cancelling the context given to Run is a drain with a bounded
// wait. Nothing new is handed out, prefetched jobs go back to their lanes
// at once, and running handlers may finish and have their jobs settled for
// up to DrainTimeout. Handlers get a context that is not cancelled by the
// Run context; it is cancelled (cause ErrDrainTimeout) when the drain times
// out, and the jobs still running then come back to their lanes when their
// leases expire (delivery is at-least-once, so nothing is lost).
//
// A Worker runs once at a time; Run may be called again after it returned.
type Worker struct {
	URL     string  // server URL, as for Dial
	Queue   string  // queue name
	Handler Handler // required
	// Concurrency is the number of handler goroutines; default 4.
	Concurrency int
	// Prefetch is how many jobs are claimed ahead of the handlers, so the
	// next job is ready when a handler finishes; default Concurrency,
	// NoPrefetch for none. Prefetched jobs count against their lane's
	// limit like any lease.
	Prefetch int
	// Slots is how many jobs are held at once, running or prefetched;
	// default Concurrency + Prefetch, at least Concurrency.
	Slots int
	// Weighted serves weighted turns: each lane gets min(weight, depth,
	// limit headroom) jobs per turn, as WClaim does; a batch never splits
	// a lane's turn unless the turn is larger than Slots (so keep Slots at
	// least the largest weight).
	Weighted bool
	// Batch is the 0.1 way to ask for weighted turns: Batch > 1 turns
	// Weighted on and, unless Prefetch is set, prefetches Batch jobs.
	//
	// Deprecated: set Weighted and Prefetch.
	Batch int
	// Lease per delivery; default 30 s. The engine extends the leases of
	// running jobs.
	Lease time.Duration
	// RetryIn is the retry delay of a failed job: 0 = the default,
	// exponential backoff (1 s * 2^(attempt-1), at most 1 h; Backoff says
	// the same), RetryNow = straight back to its lane, > 0 = that delay.
	RetryIn time.Duration
	// IdleTimeout, if > 0, ends Run (a drain, then nil) once no job was
	// handed out for that long and no handler is running: a "burst" run.
	IdleTimeout time.Duration
	// TargetWait is latency-bounded prefetch: the engine measures the
	// handlers' time and claims so that the jobs it holds unstarted are
	// about this much handler work (within Slots). A job of a quiet lane
	// then starts within about this wait even behind a deep backlog, while
	// fast handlers still get deep batches. Default 5 ms; FixedPrefetch
	// for none (every claim fills the free slots, as Weighted workers
	// always do: only full batches keep whole turns).
	TargetWait time.Duration
	// IdleWait bounds one server-side wait of the idle engine; default 5 s.
	// The engine wakes at once when work arrives either way.
	IdleWait time.Duration
	// DrainTimeout bounds the wait for running handlers when ctx is
	// cancelled; default 30 s.
	DrainTimeout time.Duration
	// DialOptions give the connect and command timeouts of the engine's
	// two or three connections (WithConnectTimeout, WithCommandTimeout) and its
	// durability (WithDurability: an unconfirmed round trip counts as done
	// and in WorkerStats.Unconfirmed).
	DialOptions []DialOption
	// OnError, if set, receives errors that do not stop the worker: a
	// failed server call of the engine (it retries by itself after a
	// backoff), a lease lost while the handler ran (ErrStaleLease), a job
	// left running by a drain that timed out. It is called from the
	// worker's goroutines.
	OnError func(error)
	// Job hooks, each called on the handler's goroutine once the job is
	// reported to the engine (which settles it with its next round trip);
	// a job whose lease was lost meanwhile gets none (OnError hears of it).
	// OnCompleted: the handler returned nil. OnFailed: it returned an error
	// or panicked (every failed attempt, also the last). OnDead, after
	// OnFailed: the failure dead-letters the job (Discard, or its last
	// attempt: job.Attempt >= job.MaxAttempts).
	OnCompleted func(job *Job)
	OnFailed    func(job *Job, err error)
	OnDead      func(job *Job, err error)

	mu    sync.Mutex
	eng   capi.Worker // the running engine, nil between runs
	last  WorkerStats // the counters of the last run, once it ended
	count *hostCounts // the binding's own counters of the current run
}

// ErrDrainTimeout is the cause of a handler context cancelled because the
// drain after a stop timed out.
var ErrDrainTimeout = errors.New("echomq: worker stopped: the drain timed out")

// WorkerStats are the counters of a Worker's run: the engine's, plus the
// handlers' outcomes. The Python WorkerStats has the same fields.
type WorkerStats struct {
	Acked      uint64 // jobs the handler finished, acknowledged
	Failed     uint64 // handler errors and panics (each failed one attempt; discards included)
	Retried    uint64 // failed attempts re-queued, at once or after a delay (Delayed counts those)
	Dead       uint64 // failed attempts that dead-lettered their job (out of attempts, or discarded)
	Lost       uint64 // leases lost before the job could be settled (delivered again)
	Errors     uint64 // failed server calls of the engine (retried after a backoff)
	Discarded  uint64 // handler errors wrapped by Discard
	Claimed    uint64 // jobs claimed
	Released   uint64 // prefetched jobs given back unstarted
	Extended   uint64 // lease extensions
	Delayed    uint64 // failed attempts sent to the delayed set (backoff)
	RoundTrips uint64 // calls to the server, idle waits excluded
	Running    uint64 // handed to a handler, not reported yet
	Buffered   uint64 // claimed ahead, not handed out yet
	// Unconfirmed: round trips done but not confirmed durable in time
	// (WithDurability in DialOptions); counted as done.
	Unconfirmed uint64
}

type hostCounts struct {
	failed, discarded atomic.Uint64
	running           atomic.Int64
	lastActivity      atomic.Int64 // monotonic ns since the run began
}

// workerConfig is the checked configuration of one run.
type workerConfig struct {
	concurrency int
	nums        []int64 // EMQGO_WOPT_* order
	drain       time.Duration
}

func (w *Worker) config() (workerConfig, error) {
	var cfg workerConfig
	if w.Handler == nil {
		return cfg, invalid("Worker.Handler is nil")
	}
	if hasNUL(w.URL) || hasNUL(w.Queue) {
		return cfg, invalid("Worker URL or queue name contains a NUL byte")
	}
	if capi.Check_queue_name(w.Queue) != 0 {
		return cfg, invalid("invalid queue name " + strconv.Quote(w.Queue) + ": 1..128 bytes of [A-Za-z0-9_.-]")
	}
	n := w.Concurrency
	if n == 0 {
		n = DefaultConcurrency
	}
	if n < 1 || n > 1024 {
		return cfg, invalid("Worker.Concurrency must be 1..1024")
	}
	pre := w.Prefetch
	if pre == 0 && w.Batch > 1 {
		pre = min(w.Batch, capi.ECHOMQ_BATCH_MAX) // 0.1's Batch: a whole weighted turn held at once
	}
	switch {
	case pre == 0:
		pre = n
	case pre == NoPrefetch:
		pre = 0
	case pre < 0:
		return cfg, invalid("Worker.Prefetch must be >= 0 or NoPrefetch")
	}
	slots := n + pre
	if w.Slots != 0 {
		if w.Slots < n {
			return cfg, invalid(fmt.Sprintf("Worker.Slots (%d) must be at least Concurrency (%d)", w.Slots, n))
		}
		slots = w.Slots
	}
	if slots > capi.ECHOMQ_BATCH_MAX {
		return cfg, invalid("Worker.Slots (Concurrency + Prefetch) must be at most " + strconv.Itoa(capi.ECHOMQ_BATCH_MAX))
	}
	lease := w.Lease
	if lease == 0 {
		lease = DefaultLease
	}
	if lease < 0 {
		return cfg, invalid("Worker.Lease must be > 0")
	}
	var retry int64
	switch {
	case w.RetryIn == 0 || w.RetryIn == Backoff:
		retry = int64(capi.ECHOMQ_RETRY_BACKOFF)
	case w.RetryIn == RetryNow:
		retry = 0
	case w.RetryIn < 0:
		return cfg, invalid("Worker.RetryIn must be >= 0, Backoff or RetryNow")
	default:
		retry = ceilMS(w.RetryIn)
	}
	if w.IdleTimeout < 0 || w.IdleWait < 0 || w.DrainTimeout < 0 {
		return cfg, invalid("Worker.IdleTimeout, IdleWait and DrainTimeout must be >= 0")
	}
	defaults := make([]int64, capi.EMQGO_WOPT_NUMS)
	capi.Worker_defaults(defaults)
	targetWait := defaults[capi.EMQGO_WOPT_TARGET_WAIT_MS]
	switch {
	case w.TargetWait == FixedPrefetch:
		targetWait = 0
	case w.TargetWait < 0:
		return cfg, invalid("Worker.TargetWait must be >= 0 or FixedPrefetch")
	case w.TargetWait > time.Duration(capi.ECHOMQ_TARGET_WAIT_MAX_MS)*time.Millisecond:
		return cfg, invalid("Worker.TargetWait must be at most " + strconv.Itoa(capi.ECHOMQ_TARGET_WAIT_MAX_MS) + " ms")
	case w.TargetWait > 0:
		targetWait = ceilMS(w.TargetWait)
	}
	idleWait := defaults[capi.EMQGO_WOPT_IDLE_WAIT_MS]
	if w.IdleWait > 0 {
		idleWait = ceilMS(w.IdleWait)
	}
	dc := dialConfig{connectTimeout: 2 * time.Second, commandTimeout: 5 * time.Second, waitTimeout: time.Second}
	for _, o := range w.DialOptions {
		o(&dc)
	}
	nums := make([]int64, capi.EMQGO_WOPT_NUMS)
	nums[capi.EMQGO_WOPT_SLOTS] = int64(slots)
	nums[capi.EMQGO_WOPT_PREFETCH] = 0 // as many jobs per round trip as there are free slots
	nums[capi.EMQGO_WOPT_LEASE_MS] = ceilMS(lease)
	if w.Weighted || w.Batch > 1 {
		nums[capi.EMQGO_WOPT_WEIGHTED] = 1
	}
	nums[capi.EMQGO_WOPT_RETRY_DELAY_MS] = retry
	nums[capi.EMQGO_WOPT_IDLE_WAIT_MS] = idleWait
	nums[capi.EMQGO_WOPT_CONNECT_TIMEOUT_MS] = ceilMS(dc.connectTimeout)
	nums[capi.EMQGO_WOPT_COMMAND_TIMEOUT_MS] = ceilMS(dc.commandTimeout)
	nums[capi.EMQGO_WOPT_WAIT_REPLICAS] = int64(dc.waitReplicas)
	if dc.waitAOF {
		nums[capi.EMQGO_WOPT_WAIT_AOF] = 1
	}
	nums[capi.EMQGO_WOPT_WAIT_TIMEOUT_MS] = ceilMS(dc.waitTimeout)
	nums[capi.EMQGO_WOPT_TARGET_WAIT_MS] = targetWait
	cfg.concurrency = n
	cfg.nums = nums
	cfg.drain = w.DrainTimeout
	if cfg.drain == 0 {
		cfg.drain = DefaultDrainTimeout
	}
	return cfg, nil
}

// Run processes jobs until ctx is cancelled (a drain, see Worker), or
// until IdleTimeout passes without work, and then returns nil. Invalid
// settings and a failed first connect are returned at once; later server
// errors are retried by the engine and reported to OnError.
func (w *Worker) Run(ctx context.Context) error {
	cfg, err := w.config()
	if err != nil {
		return err
	}
	if err := libraryVersionOK(); err != nil {
		return err
	}
	var out [1]uint64
	if rc := capi.Worker_create(w.URL, w.Queue, cfg.nums, out[:]); rc != 0 || out[0] == 0 {
		if rc == 0 {
			rc = capi.ECHOMQ_ENOMEM
		}
		return &Error{Code: Code(rc), Msg: "cannot create the worker engine: bad URL or option"}
	}
	h := capi.SwigcptrWorker(uintptr(out[0]))
	live.add(&live.workers, 1)
	free := func() {
		capi.Worker_free(h)
		live.add(&live.workers, -1)
	}
	if ctx.Err() != nil {
		free()
		return nil
	}
	if rc := capi.Worker_start(h); rc != 0 {
		err := engineError(h, rc)
		free()
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	counts := &hostCounts{}
	w.mu.Lock()
	w.eng, w.count = h, counts
	w.mu.Unlock()

	began := time.Now()
	hctx, hcancel := context.WithCancelCause(context.WithoutCancel(ctx))
	defer hcancel(nil)
	q := &Queue{name: w.Queue} // no client: jobs are settled through the engine
	var wg sync.WaitGroup
	for i := 0; i < cfg.concurrency; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.host(hctx, h, q, counts, began)
		}()
	}

	// Watch for the stop, the idle timeout and engine errors.
	var seenErrors uint64
	pollErrors := func() {
		st := engineStats(h)
		if st.Errors > seenErrors {
			seenErrors = st.Errors
			if rc, msg := lastEngineError(h); rc != 0 {
				w.report(&Error{Code: Code(rc), Msg: "worker engine: " + msg})
			}
		}
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
watch:
	for {
		select {
		case <-ctx.Done():
			break watch
		case <-tick.C:
			pollErrors()
			if w.IdleTimeout > 0 && counts.running.Load() == 0 &&
				time.Since(began)-time.Duration(counts.lastActivity.Load()) >= w.IdleTimeout &&
				engineStats(h).Buffered == 0 {
				break watch
			}
		}
	}
	clean := capi.Worker_stop(h, capi.ECHOMQ_STOP_DRAIN, ceilMS(cfg.drain)) == 0
	pollErrors()
	if !clean {
		hcancel(ErrDrainTimeout)
		w.report(fmt.Errorf("echomq: worker stopped with jobs still running (they come back by their leases): %w",
			ErrDrainTimeout))
	}
	final := func() {
		st := w.statsOf(h, counts)
		w.mu.Lock()
		w.eng, w.count, w.last = nil, nil, st
		w.mu.Unlock()
	}
	if clean {
		wg.Wait() // every handler has returned: the goroutines end at once
		final()
		free()
		return nil
	}
	// Handlers still running hold the engine handle: the last one out frees it.
	final()
	go func() {
		wg.Wait()
		free()
	}()
	return nil
}

// Stats returns the counters of the run in progress, or of the last run.
func (w *Worker) Stats() WorkerStats {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.eng == nil {
		return w.last
	}
	return w.statsOf(w.eng, w.count)
}

func (w *Worker) statsOf(h capi.Worker, c *hostCounts) WorkerStats {
	st := engineStats(h)
	st.Failed = c.failed.Load()
	st.Discarded = c.discarded.Load()
	return st
}

// host is one handler goroutine: take a job, run the handler, report.
func (w *Worker) host(ctx context.Context, h capi.Worker, q *Queue, c *hostCounts, began time.Time) {
	for {
		var out [1]uint64
		rc := capi.Worker_next(h, 1000, out[:])
		switch {
		case rc == capi.ECHOMQ_EMPTY:
			continue
		case rc == capi.ECHOMQ_ECANCELED: // stopping: nothing more comes
			return
		case rc != 0 || out[0] == 0:
			w.report(engineError(h, rc))
			return
		}
		live.add(&live.jobs, 1)
		jh := capi.SwigcptrJob(uintptr(out[0]))
		job := jobFromHandle(q, jh)
		c.running.Add(1)
		c.lastActivity.Store(int64(time.Since(began)))
		herr := w.call(ctx, job)
		var st int
		switch {
		case herr == nil: // the result and the reported cost in one report
			st = capi.Worker_settle(h, jh, 1, "", 0, job.cost, job.result)
		case errors.Is(herr, ErrDiscard):
			c.failed.Add(1)
			c.discarded.Add(1)
			st = capi.Worker_discard(h, jh, cutAtNUL(herr.Error()))
		default:
			c.failed.Add(1)
			st = capi.Worker_settle(h, jh, 0, cutAtNUL(herr.Error()), int64(capi.ECHOMQ_RETRY_DEFAULT), job.cost, nil)
		}
		capi.Job_free(jh)
		live.add(&live.jobs, -1)
		c.lastActivity.Store(int64(time.Since(began)))
		c.running.Add(-1)
		switch st {
		case 0:
			w.hooks(job, herr)
		case capi.ECHOMQ_ENOTFOUND:
			w.report(&Error{Code: CodeStale, Msg: "job " + strconv.FormatUint(job.ID, 10) +
				": lease lost while the handler ran (it is delivered again)"})
		case capi.ECHOMQ_ECANCELED:
			w.report(&Error{Code: CodeCanceled, Msg: "job " + strconv.FormatUint(job.ID, 10) +
				": the worker stopped before it was reported; it comes back when its lease expires"})
		default:
			w.report(&Error{Code: Code(st), Msg: "report of job " + strconv.FormatUint(job.ID, 10) + " refused"})
		}
	}
}

// call runs the handler; a panic becomes an error.
func (w *Worker) call(ctx context.Context, job *Job) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("echomq: handler panic: %v", r)
		}
	}()
	return w.Handler(ctx, job)
}

// hooks calls the job hooks for a job reported with handler result herr.
func (w *Worker) hooks(job *Job, herr error) {
	if herr == nil {
		if w.OnCompleted != nil {
			w.OnCompleted(job)
		}
		return
	}
	if w.OnFailed != nil {
		w.OnFailed(job, herr)
	}
	if w.OnDead != nil && (errors.Is(herr, ErrDiscard) || job.Attempt >= job.MaxAttempts) {
		w.OnDead(job, herr)
	}
}

func (w *Worker) report(err error) {
	if w.OnError != nil && err != nil {
		w.OnError(err)
	}
}

func engineStats(h capi.Worker) WorkerStats {
	n := make([]int64, capi.EMQGO_WSTATS_NUMS)
	if capi.Worker_stats(h, n) != 0 {
		return WorkerStats{}
	}
	u := func(i int) uint64 { return uint64(n[i]) }
	return WorkerStats{
		Acked:       u(capi.EMQGO_WSTATS_DONE),
		Retried:     u(capi.EMQGO_WSTATS_RETRIED) + u(capi.EMQGO_WSTATS_DELAYED),
		Dead:        u(capi.EMQGO_WSTATS_DEAD),
		Lost:        u(capi.EMQGO_WSTATS_LOST),
		Errors:      u(capi.EMQGO_WSTATS_ERRORS),
		Claimed:     u(capi.EMQGO_WSTATS_CLAIMED),
		Released:    u(capi.EMQGO_WSTATS_RELEASED),
		Extended:    u(capi.EMQGO_WSTATS_EXTENDED),
		Delayed:     u(capi.EMQGO_WSTATS_DELAYED),
		RoundTrips:  u(capi.EMQGO_WSTATS_ROUND_TRIPS),
		Running:     u(capi.EMQGO_WSTATS_RUNNING),
		Buffered:    u(capi.EMQGO_WSTATS_BUFFERED),
		Unconfirmed: u(capi.EMQGO_WSTATS_UNCONFIRMED),
	}
}

func lastEngineError(h capi.Worker) (int, string) {
	buf := make([]byte, 1024)
	rc := capi.Worker_last_error(h, buf)
	for i, b := range buf {
		if b == 0 {
			buf = buf[:i]
			break
		}
	}
	return rc, string(buf)
}

// engineError is the error of a failed engine call, with the engine's
// message when it kept one.
func engineError(h capi.Worker, rc int) error {
	msg := capi.Strerror(rc)
	if lrc, m := lastEngineError(h); lrc == rc && m != "" {
		msg = m
	}
	return &Error{Code: Code(rc), Msg: msg}
}
