package echomq

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/echomq/echomq/bindings/go/internal/capi"
)

// Handler processes one job. Returning nil completes the job (with the
// result set by Job.SetResult or Job.SetResultValue, if any); returning an
// error fails it (retried as Worker.RetryIn says, or dead-lettered when out
// of attempts); returning an error wrapped by Discard dead-letters it now.
// A panic counts as an error. The job is settled by the Worker's engine:
// its Queue() has no Client, so Ack, Fail and Extend on it return
// ErrClosed.
type Handler func(ctx context.Context, job *Job) error

// Defaults of a Worker: the engine's (echomq/worker.h), read from the
// library, and so the same as the Python Worker's.
var (
	DefaultConcurrency  = capi.ECHOMQ_WORKER_HANDLERS_DEFAULT                 // handler goroutines
	DefaultLease        = msBound(engineDefaults()[capi.EMQGO_WOPT_LEASE_MS]) // the engine's lease
	DefaultDrainTimeout = msBound(int64(capi.ECHOMQ_WORKER_DRAIN_MS_DEFAULT)) // wait for running handlers at a stop
)

// engineDefaults are the engine's default options (capi EMQGO_WOPT_* order).
func engineDefaults() []int64 {
	d := make([]int64, capi.EMQGO_WOPT_NUMS)
	capi.Worker_defaults(d)
	return d
}

// errorPoll is how often a running Worker looks at the engine's error count
// (OnError).
const errorPoll = 100 * time.Millisecond

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
	// IdleTimeout, if > 0, ends Run (then nil) once the engine has held no
	// job for that long (none running, none claimed ahead): a "burst" run.
	// The engine stops by itself (echomq_worker_options.idle_timeout_ms).
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
	// left running by a drain that timed out, a result dropped
	// (ErrResultDropped). It is called from the worker's goroutines.
	OnError func(error)
	// Job hooks, each called on the handler's goroutine once the job is
	// reported to the engine (which settles it with its next round trip);
	// a job whose lease was lost meanwhile gets none (OnError hears of it).
	// OnCompleted: the handler returned nil. OnFailed: it returned an error
	// or panicked (every failed attempt, also the last). OnDead, after
	// OnFailed: the failure dead-letters the job (Discard, or its last
	// attempt), as the engine says.
	OnCompleted func(job *Job)
	OnFailed    func(job *Job, err error)
	OnDead      func(job *Job, err error)
	// Serializer turns a value given to Job.SetResultValue into the job's
	// result; default json.Marshal. A value it cannot encode, or a result
	// over 65,536 bytes (ECHOMQ_RESULT_MAX), still completes the job: the
	// result is dropped and the reason kept instead (Job.ResultDropped),
	// logged at Error and sent to OnError as ErrResultDropped. A handler
	// that returned nil never runs again because of its result.
	Serializer func(v any) ([]byte, error)
	// Logger receives what the worker does with failed jobs and results:
	// a failed attempt that will be retried at Info, one that dead-letters
	// its job (or a discard) at Warn, a dropped result at Error. Default
	// slog.Default(); slog.New(handler) with a handler of your own level or
	// output to change it.
	Logger *slog.Logger

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
	Canceled    uint64 // jobs that settled as canceled (Queue.Cancel)
	TimedOut    uint64 // attempts that ran out of their time limit (WithTimeout)
}

// ErrResultDropped matches (errors.Is) what OnError gets for a job that
// completed without its result: it could not be encoded, or it was over
// 65,536 bytes (ECHOMQ_RESULT_MAX). The job's outcome keeps the reason
// (Job.ResultDropped).
var ErrResultDropped = errors.New("echomq: result dropped")

type hostCounts struct {
	failed, discarded atomic.Uint64
}

// workerConfig is the checked configuration of one run.
type workerConfig struct {
	concurrency int
	nums        []int64 // EMQGO_WOPT_* order
	drain       time.Duration
	serializer  func(any) ([]byte, error)
	log         *slog.Logger
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
	slots, err := w.slots(n)
	if err != nil {
		return cfg, err
	}
	// The engine's defaults stand for every option left at its zero value.
	nums := engineDefaults()
	nums[capi.EMQGO_WOPT_SLOTS] = int64(slots)
	nums[capi.EMQGO_WOPT_PREFETCH] = 0 // as many jobs per round trip as there are free slots
	nums[capi.EMQGO_WOPT_REPORT_OUTCOMES] = 1
	if w.Weighted || w.Batch > 1 {
		nums[capi.EMQGO_WOPT_WEIGHTED] = 1
	}
	set := func(i int, what string, d, lo, hi time.Duration) {
		if err == nil && d != 0 {
			nums[i], err = durationMS(what, d, lo, hi)
		}
	}
	set(capi.EMQGO_WOPT_LEASE_MS, "Worker.Lease", w.Lease, time.Millisecond, leaseMax)
	set(capi.EMQGO_WOPT_IDLE_TIMEOUT_MS, "Worker.IdleTimeout", w.IdleTimeout, time.Millisecond, waitMax)
	set(capi.EMQGO_WOPT_IDLE_WAIT_MS, "Worker.IdleWait", w.IdleWait, time.Millisecond, waitMax)
	if w.TargetWait == FixedPrefetch {
		nums[capi.EMQGO_WOPT_TARGET_WAIT_MS] = 0
	} else {
		set(capi.EMQGO_WOPT_TARGET_WAIT_MS, "Worker.TargetWait", w.TargetWait, 0, targetWaitMax)
	}
	if err == nil && w.RetryIn != 0 {
		nums[capi.EMQGO_WOPT_RETRY_DELAY_MS], err = retryMS("Worker.RetryIn", w.RetryIn)
	}
	var dc dialConfig
	for _, o := range w.DialOptions {
		o(&dc)
	}
	set(capi.EMQGO_WOPT_CONNECT_TIMEOUT_MS, "the connect timeout", dc.connectTimeout, time.Millisecond, int32Max)
	set(capi.EMQGO_WOPT_COMMAND_TIMEOUT_MS, "the command timeout", dc.commandTimeout, time.Millisecond, int32Max)
	set(capi.EMQGO_WOPT_WAIT_TIMEOUT_MS, "the durability wait", dc.waitTimeout, time.Millisecond,
		msBound(int64(capi.ECHOMQ_WAIT_TIMEOUT_MAX_MS)))
	if err != nil {
		return cfg, err
	}
	nums[capi.EMQGO_WOPT_WAIT_REPLICAS] = int64(dc.waitReplicas)
	if dc.waitAOF {
		nums[capi.EMQGO_WOPT_WAIT_AOF] = 1
	}
	cfg.drain = w.DrainTimeout
	switch {
	case cfg.drain == 0:
		cfg.drain = DefaultDrainTimeout
	case cfg.drain < 0:
		return cfg, invalid("Worker.DrainTimeout must be >= 0, got " + w.DrainTimeout.String())
	}
	cfg.concurrency = n
	cfg.nums = nums
	cfg.serializer = w.Serializer
	if cfg.serializer == nil {
		cfg.serializer = json.Marshal
	}
	cfg.log = w.Logger
	if cfg.log == nil {
		cfg.log = slog.Default()
	}
	return cfg, nil
}

// int32Max bounds the timeouts the C options keep as an int of ms.
const int32Max = time.Duration(1<<31-1) * time.Millisecond

// slots is how many jobs the engine holds: Concurrency + Prefetch, or Slots.
func (w *Worker) slots(n int) (int, error) {
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
		return 0, invalid("Worker.Prefetch must be >= 0 or NoPrefetch")
	}
	slots := n + pre
	if w.Slots != 0 {
		if w.Slots < n {
			return 0, invalid(fmt.Sprintf("Worker.Slots (%d) must be at least Concurrency (%d)", w.Slots, n))
		}
		slots = w.Slots
	}
	if slots > capi.ECHOMQ_BATCH_MAX {
		return 0, invalid("Worker.Slots (Concurrency + Prefetch) must be at most " + strconv.Itoa(capi.ECHOMQ_BATCH_MAX))
	}
	return slots, nil
}

// Run processes jobs until ctx is cancelled (a drain, see Worker), or
// until the engine stops by itself on IdleTimeout, and then returns nil.
// Invalid settings and a failed first connect are returned at once; later
// server errors are retried by the engine and reported to OnError.
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

	hctx, hcancel := context.WithCancelCause(context.WithoutCancel(ctx))
	defer hcancel(nil)
	q := &Queue{name: w.Queue} // no client: jobs are settled through the engine
	hs := newHalts()
	var wg sync.WaitGroup
	for i := 0; i < cfg.concurrency; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.host(hctx, h, q, counts, &cfg, hs)
		}()
	}
	wg.Add(1)
	go func() { // a canceled or timed-out job's handler context (lifecycle.go)
		defer wg.Done()
		hs.watch(h)
	}()
	// The hosts end when the engine stops: asked to, or by itself.
	hostsDone := make(chan struct{})
	go func() {
		wg.Wait()
		close(hostsDone)
	}()

	// Wait for the stop, passing engine errors on meanwhile.
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
	tick := time.NewTicker(errorPoll)
	defer tick.Stop()
watch:
	for {
		select {
		case <-ctx.Done():
			break watch
		case <-hostsDone:
			break watch
		case <-tick.C:
			pollErrors()
		}
	}
	// A drain; at once when the engine stopped by itself.
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
		<-hostsDone // every handler has returned: the goroutines end at once
		final()
		free()
		return nil
	}
	// Handlers still running hold the engine handle: the last one out frees it.
	final()
	go func() {
		<-hostsDone
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
func (w *Worker) host(ctx context.Context, h capi.Worker, q *Queue, c *hostCounts, cfg *workerConfig, hs *halts) {
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
		jctx, done := hs.start(ctx, jh, job.ID, job.Token)
		herr := w.call(jctx, job)
		done()
		var st int
		switch {
		case herr == nil: // the result and the reported cost in one report
			result, dropped := w.result(job, cfg)
			st = capi.Worker_settle(h, jh, 1, "", 0, job.cost, result, dropped)
		case errors.Is(herr, ErrDiscard):
			c.failed.Add(1)
			c.discarded.Add(1)
			st = capi.Worker_discard(h, jh, cutAtNUL(herr.Error()))
		default:
			c.failed.Add(1)
			st = capi.Worker_settle(h, jh, 0, cutAtNUL(herr.Error()), int64(capi.ECHOMQ_RETRY_DEFAULT), job.cost, nil, "")
		}
		capi.Job_free(jh)
		live.add(&live.jobs, -1)
		w.reported(job, herr, st, cfg.log)
	}
}

// result is what a job that succeeded reports: its result bytes, or why
// its result is dropped ("" = it is not). A result over the limit goes as
// it is: the engine drops it (report_outcomes) and records why.
func (w *Worker) result(job *Job, cfg *workerConfig) ([]byte, string) {
	data := job.result
	if job.value != nil {
		var err error
		if data, err = cfg.serializer(job.value); err != nil {
			why := cutAtNUL("cannot encode the result: " + err.Error())
			w.dropped(job, why, cfg.log)
			return nil, why
		}
	}
	if len(data) > capi.ECHOMQ_RESULT_MAX {
		w.dropped(job, fmt.Sprintf("result of %d bytes is over ECHOMQ_RESULT_MAX (%d)", len(data),
			capi.ECHOMQ_RESULT_MAX), cfg.log)
	}
	return data, ""
}

func (w *Worker) dropped(job *Job, why string, log *slog.Logger) {
	log.Error("echomq: result dropped, the job completes without it", "job", job.ID, "lane", job.Group, "reason", why)
	w.report(fmt.Errorf("%w: job %d: %s", ErrResultDropped, job.ID, why))
}

// reported logs and calls the hooks by what the engine says becomes of a
// job reported with handler result herr (report status st).
func (w *Worker) reported(job *Job, herr error, st int, log *slog.Logger) {
	id := strconv.FormatUint(job.ID, 10)
	switch st {
	case capi.ECHOMQ_OK:
		if w.OnCompleted != nil {
			w.OnCompleted(job)
		}
	case capi.ECHOMQ_WILL_RETRY, capi.ECHOMQ_WILL_DIE:
		dies := st == capi.ECHOMQ_WILL_DIE
		what, level := "echomq: job failed, will be retried", slog.LevelInfo
		switch {
		case errors.Is(herr, ErrDiscard):
			what, level = "echomq: job discarded, dead-lettered", slog.LevelWarn
		case dies:
			what, level = "echomq: job failed, dead-lettered", slog.LevelWarn
		}
		log.Log(context.Background(), level, what, "job", job.ID, "lane", job.Group, "attempt", job.Attempt,
			"max_attempts", job.MaxAttempts, "reason", herr.Error())
		if w.OnFailed != nil {
			w.OnFailed(job, herr)
		}
		if dies && w.OnDead != nil {
			w.OnDead(job, herr)
		}
	case capi.ECHOMQ_WAS_CANCELED: // settled as canceled: what Cancel asked for
		log.Info("echomq: job was canceled: it settled as canceled", "job", job.ID, "lane", job.Group)
	case capi.ECHOMQ_ESTALE:
		w.report(&Error{Code: CodeStale, Msg: "job " + id + ": lease lost while the handler ran (it is delivered again)"})
	case capi.ECHOMQ_ECANCELED:
		w.report(&Error{Code: CodeCanceled, Msg: "job " + id +
			": the worker stopped before it was reported; it comes back when its lease expires"})
	default:
		w.report(&Error{Code: Code(st), Msg: "report of job " + id + " refused"})
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
		Canceled:    u(capi.EMQGO_WSTATS_CANCELED),
		TimedOut:    u(capi.EMQGO_WSTATS_TIMED_OUT),
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
