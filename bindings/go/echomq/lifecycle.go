package echomq

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/echomq/echomq/bindings/go/internal/capi"
)

// A job's life past claim and settle (echomq/lifecycle.h): cancel, time
// limits, start deadlines, the queue-wide ceiling and rate, and lane limits
// that burst. A Worker's handler learns that its job was canceled or ran
// out of time through its context: cancelled with cause ErrJobCanceled or
// ErrTimedOut (context.Cause).

// The causes of a handler's context cancelled by the engine.
var (
	// ErrJobCanceled: the job was canceled (Queue.Cancel) while its handler
	// ran; it settles as canceled whatever the handler returns.
	ErrJobCanceled = errors.New("echomq: the job was canceled")
	// ErrTimedOut: the attempt ran out of its time limit (WithTimeout, or
	// the queue's SetDefaultTimeout); it fails "timed out" whatever the
	// handler returns, retried by the usual policy.
	ErrTimedOut = errors.New("echomq: the attempt ran out of its time limit")
)

var (
	timeoutMax = msBound(capi.ECHOMQ_TIMEOUT_MAX_MS)
	ttlMax     = msBound(capi.ECHOMQ_TTL_MAX_MS)
)

type jobLimits struct {
	timeout   time.Duration
	ttl       time.Duration
	expiresAt time.Time
	drop      bool
}

// WithTimeout sets how long one attempt may run (1ms..366 days); without
// it the queue's default applies (SetDefaultTimeout). When it runs out a
// Worker cancels the handler's context (cause ErrTimedOut), and the attempt
// fails "timed out" and is retried by the usual policy.
func WithTimeout(d time.Duration) EnqueueOption {
	return func(c *enqueueConfig) { c.life.timeout = d }
}

// WithTTL sets a deadline to start, d from now (server clock): a job not
// started by then never starts; it dies "expired" (or is removed,
// WithExpireDrop). Not with WithExpiresAt.
func WithTTL(d time.Duration) EnqueueOption {
	return func(c *enqueueConfig) { c.life.ttl = d }
}

// WithExpiresAt sets the deadline to start at t (server clock). A time past,
// or before the job falls due, is ErrInvalid.
func WithExpiresAt(t time.Time) EnqueueOption {
	return func(c *enqueueConfig) { c.life.expiresAt = t }
}

// WithExpireDrop removes a job whose start deadline passed instead of
// dead-lettering it.
func WithExpireDrop() EnqueueOption {
	return func(c *enqueueConfig) { c.life.drop = true }
}

// numbers fills the enqueue shim's lifecycle numbers, checked in Go's terms.
func (l jobLimits) numbers(nums []int64) error {
	var err error
	if l.timeout != 0 {
		if nums[capi.EMQGO_EOPT_TIMEOUT_MS], err = durationMS("WithTimeout", l.timeout, time.Millisecond,
			timeoutMax); err != nil {
			return err
		}
	}
	if l.ttl != 0 && !l.expiresAt.IsZero() {
		return invalid("WithTTL and WithExpiresAt exclude each other")
	}
	if l.ttl != 0 {
		if nums[capi.EMQGO_EOPT_TTL_MS], err = durationMS("WithTTL", l.ttl, time.Millisecond, ttlMax); err != nil {
			return err
		}
	}
	if !l.expiresAt.IsZero() {
		nums[capi.EMQGO_EOPT_EXPIRES_AT_MS] = atMS(l.expiresAt)
	}
	if l.drop {
		if l.ttl == 0 && l.expiresAt.IsZero() {
			return invalid("WithExpireDrop needs WithTTL or WithExpiresAt")
		}
		nums[capi.EMQGO_EOPT_EXPIRE_FLAGS] = int64(capi.ECHOMQ_EXPIRE_DROP)
	}
	return nil
}

// Cancel cancels job id: it never runs again. A pending or delayed job is
// dead-lettered at once (last error "canceled" or "canceled: <reason>"), or
// removed with remove; a leased one is marked and settles as canceled at
// its holder's next report (a Worker's handler is told at once). A flow's
// parent waiting for its children (StateWaiting) is canceled with every job
// below it that has not run, in one call: waiting ones now, running ones
// marked, finished ones left as they are. A flow's job canceled is, to its
// own parent, a death with reason "canceled": the link's policy applies. It
// returns the state the job had (StatePending, StateDelayed, StateWaiting,
// StateLeased, or StateDead: it was canceled before, nothing changed).
// Errors: ErrNotFound (never enqueued), ErrFinished (it has finished:
// nothing to cancel), ErrInvalid.
func (q *Queue) Cancel(ctx context.Context, id uint64, reason string, remove bool) (JobState, error) {
	if err := q.checkNames(); err != nil {
		return 0, err
	}
	if hasNUL(reason) {
		return 0, invalid("reason contains a NUL byte")
	}
	flags := uint(0)
	if remove {
		flags = uint(capi.ECHOMQ_CANCEL_REMOVE)
	}
	var was [1]int64
	_, err := q.c.do(ctx, func(h capi.Client) int { return capi.Cancel(h, q.name, id, reason, flags, was[:]) })
	return JobState(was[0]), err
}

// SetLimitBurst sets the lane's (or tenant "T/"'s) own limit and its burst
// ceiling together (burst 0: none; else at least limit). At or above its
// limit, below its burst, the lane is served only when no lane below its
// own limit has work. Limit with 0 (ClearLimit) clears both.
func (q *Queue) SetLimitBurst(ctx context.Context, group string, limit, burst uint32) error {
	return q.laneCall(ctx, group, func(h capi.Client) int {
		return capi.Set_limit_burst(h, q.name, group, uint(limit), uint(burst))
	})
}

// SetDefaultTimeout sets the queue's default time limit of an attempt, for
// jobs enqueued without WithTimeout (0 clears it).
func (q *Queue) SetDefaultTimeout(ctx context.Context, d time.Duration) error {
	ms, err := durationMS("the default timeout", d, 0, timeoutMax)
	if err != nil {
		return err
	}
	return q.laneCall(ctx, "", func(h capi.Client) int { return capi.Set_default_timeout(h, q.name, ms) })
}

// SetQueueLimit sets the queue-wide ceiling: at most n jobs leased at once
// across all lanes (0 clears it). Lane and tenant limits hold within it.
func (q *Queue) SetQueueLimit(ctx context.Context, n uint32) error {
	return q.laneCall(ctx, "", func(h capi.Client) int { return capi.Set_queue_limit(h, q.name, uint(n)) })
}

// SetQueueRate sets the queue-wide rate: jobs starts per period across all
// lanes, in bursts of up to burst (0 = jobs); jobs 0 clears it.
func (q *Queue) SetQueueRate(ctx context.Context, jobs uint32, period time.Duration, burst uint32) error {
	ms, err := durationMS("the period", period, time.Millisecond, ratePeriodMax)
	if err != nil {
		return err
	}
	return q.laneCall(ctx, "", func(h capi.Client) int {
		return capi.Set_queue_rate(h, q.name, uint(jobs), ms, uint(burst))
	})
}

// LifecycleSettings are a queue's lifecycle settings and where it stands
// (Queue.Lifecycle; zero values: none). A lane's burst ceiling is in its
// LaneInfo (Burst, Bursting).
type LifecycleSettings struct {
	DefaultTimeout time.Duration // SetDefaultTimeout; 0 = none
	QueueLimit     uint32        // SetQueueLimit: the queue-wide ceiling; 0 = none
	Rate           *Rate         // SetQueueRate: the queue-wide rate; nil = none
	Leased         uint64        // jobs leased now: what the ceiling counts
	Tokens         float64       // the queue-wide rate's tokens now; -1 without a rate
	NextToken      time.Time     // when the rate's next token is due; zero = one is there now
}

// Lifecycle reads the queue's lifecycle settings: the default time limit,
// the queue-wide ceiling and rate, and where they stand. A sharded queue's
// are its shards' summed (the default time limit: the first shard's).
// Errors: ErrInvalid (names), ErrConn, ErrTimeout, ErrServer, ErrNoPerm.
func (q *Queue) Lifecycle(ctx context.Context) (LifecycleSettings, error) {
	if err := q.checkNames(); err != nil {
		return LifecycleSettings{}, err
	}
	n := make([]int64, capi.EMQGO_LIFE_NUMS)
	if _, err := q.c.do(ctx, func(h capi.Client) int { return capi.Get_lifecycle(h, q.name, n) }); err != nil {
		return LifecycleSettings{}, err
	}
	s := LifecycleSettings{
		DefaultTimeout: time.Duration(n[capi.EMQGO_LIFE_DEFAULT_TIMEOUT_MS]) * time.Millisecond,
		QueueLimit:     uint32(n[capi.EMQGO_LIFE_QUEUE_LIMIT]),
		Leased:         uint64(n[capi.EMQGO_LIFE_LEASED]),
		Tokens:         -1,
		NextToken:      msTime(n[capi.EMQGO_LIFE_NEXT_TOKEN_AT_MS]),
	}
	if jobs := n[capi.EMQGO_LIFE_RATE_JOBS]; jobs != 0 {
		s.Rate = &Rate{Jobs: uint32(jobs), Per: time.Duration(n[capi.EMQGO_LIFE_RATE_PERIOD_MS]) * time.Millisecond,
			Burst: uint32(n[capi.EMQGO_LIFE_RATE_BURST])}
	}
	if t := n[capi.EMQGO_LIFE_TOKENS_MILLI]; t >= 0 {
		s.Tokens = float64(t) / 1000
	}
	return s, nil
}

// halts tells each running handler the engine halts: its job's context is
// cancelled with cause ErrJobCanceled or ErrTimedOut. Ends with the engine.
type halts struct {
	mu      sync.Mutex
	running map[[2]uint64]context.CancelCauseFunc
}

func newHalts() *halts {
	return &halts{running: map[[2]uint64]context.CancelCauseFunc{}}
}

func haltCause(why int64) error {
	if why == int64(capi.ECHOMQ_HALT_TIMED_OUT) {
		return ErrTimedOut
	}
	return ErrJobCanceled
}

// start gives job (id, token) a context of its own, cancelled when the
// engine halts it; done forgets it.
func (hs *halts) start(ctx context.Context, jh capi.Job, id, token uint64) (context.Context, func()) {
	jctx, cancel := context.WithCancelCause(ctx)
	key := [2]uint64{id, token}
	hs.mu.Lock()
	hs.running[key] = cancel
	hs.mu.Unlock()
	if why := capi.Job_halted(jh); why != 0 { // halted before it was found here
		cancel(haltCause(int64(why)))
	}
	return jctx, func() {
		hs.mu.Lock()
		delete(hs.running, key)
		hs.mu.Unlock()
		cancel(nil)
	}
}

// watch reads the engine's halt notices until it stops.
func (hs *halts) watch(h capi.Worker) {
	nums := make([]int64, 3)
	for {
		rc := capi.Worker_next_halt(h, 1000, nums)
		if rc == capi.ECHOMQ_EMPTY {
			continue
		}
		if rc != 0 {
			return // stopped (ECANCELED), or a bug: the handlers still learn at their report
		}
		hs.mu.Lock()
		cancel := hs.running[[2]uint64{uint64(nums[0]), uint64(nums[1])}]
		hs.mu.Unlock()
		if cancel != nil {
			cancel(haltCause(nums[2]))
		}
	}
}
