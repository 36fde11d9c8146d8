package echomq

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/echomq/echomq/bindings/go/internal/capi"
)

// Queue is a named queue on a Client. It is a light value: make as many as
// you like. Its methods are safe for concurrent use (they share the
// Client's connection).
type Queue struct {
	c    *Client
	name string
}

// Name is the queue's name.
func (q *Queue) Name() string { return q.name }

// Client is the client the queue was made from.
func (q *Queue) Client() *Client { return q.c }

type enqueueConfig struct {
	delay       time.Duration
	maxAttempts uint32
	key         string            // WithKey
	keyed       bool              // WithKey was given
	window      time.Duration     // WithDedupWindow; 0 = the default
	keep        time.Duration     // WithKeep
	keepLast    uint64            // WithKeep
	estimate    uint64            // WithCostEstimate
	at          time.Time         // WithAt
	life        jobLimits         // WithTimeout, WithTTL, WithExpiresAt, WithExpireDrop (lifecycle.go)
	name        string            // WithName
	headers     map[string]string // WithHeaders, WithHeader
}

// EnqueueOption configures Enqueue and EnqueueBatch.
type EnqueueOption func(*enqueueConfig)

// WithDelay makes the job ready only after d (server time).
func WithDelay(d time.Duration) EnqueueOption {
	return func(c *enqueueConfig) { c.delay = d }
}

// WithAt makes the job ready at t, compared with the server's clock (a
// time past is ready now). Not with WithDelay. A time more than
// ECHOMQ_DELAY_MAX_MS (366 days) ahead is ErrInvalid.
func WithAt(t time.Time) EnqueueOption {
	return func(c *enqueueConfig) { c.at = t }
}

// WithMaxAttempts sets how many deliveries the job gets before it is
// dead-lettered (default: the queue's default, 3 unless set).
func WithMaxAttempts(n uint32) EnqueueOption {
	return func(c *enqueueConfig) { c.maxAttempts = n }
}

// WithCostEstimate says what each job is expected to cost, in the queue's
// cost units (1..2^53-1; 0 = none). In cost mode (SetCostMode) the job's
// lane is charged it when the job is claimed, and the real cost that comes
// with its settlement (the Worker's charge, Job.ReportCost) replaces it; a
// settlement without a charge, or an expired lease, leaves it charged.
// Outside cost mode it is checked and not kept.
func WithCostEstimate(units uint64) EnqueueOption {
	return func(c *enqueueConfig) { c.estimate = units }
}

// WithName gives the job a name (its kind, as a Mux dispatches on it):
// 1..128 bytes (ECHOMQ_JOB_NAME_MAX), no control character. It is kept
// with the job through retries and redrives (Job.Name).
func WithName(name string) EnqueueOption {
	return func(c *enqueueConfig) { c.name = name }
}

// WithHeaders gives the job a small map of string headers (Job.Headers):
// at most 32 (ECHOMQ_HEADERS_MAX), keys and values 4,096 bytes in all
// (ECHOMQ_HEADERS_BYTES_MAX), no control character. A later WithHeaders
// replaces an earlier one (and the WithHeader entries before it).
func WithHeaders(h map[string]string) EnqueueOption {
	return func(c *enqueueConfig) {
		c.headers = make(map[string]string, len(h))
		for k, v := range h {
			c.headers[k] = v
		}
	}
}

// WithHeader adds one header to the job's headers, unless they hold that
// key already (a header given before wins): how a layer over Enqueue, such
// as tracing, adds its own beside the caller's. Limits as WithHeaders'.
func WithHeader(key, value string) EnqueueOption {
	return func(c *enqueueConfig) {
		if c.headers == nil {
			c.headers = map[string]string{}
		}
		if _, given := c.headers[key]; !given {
			c.headers[key] = value
		}
	}
}

// encodeHeaders gives headers as the C shim takes them: "key\tvalue"
// entries joined by "\n", in key order whatever the map's.
func encodeHeaders(h map[string]string) (string, error) {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if strings.ContainsAny(k, "\x00\t\n") || strings.ContainsAny(h[k], "\x00\t\n") {
			return "", invalid("WithHeaders: header " + strconv.Quote(k) + " holds a control character")
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(k)
		b.WriteByte('\t')
		b.WriteString(h[k])
	}
	return b.String(), nil
}

// enqueueOptions applies opts and gives the numbers of the one enqueue shim
// (capi EMQGO_EOPT_*), every duration checked in Go's terms first.
func enqueueOptions(opts []EnqueueOption) (enqueueConfig, []int64, string, error) {
	var cfg enqueueConfig
	for _, o := range opts {
		o(&cfg)
	}
	nums := make([]int64, capi.EMQGO_EOPT_NUMS)
	headers, err := encodeHeaders(cfg.headers)
	if err != nil {
		return cfg, nil, "", err
	}
	if hasNUL(cfg.name) {
		return cfg, nil, "", invalid("WithName: the name holds a NUL byte")
	}
	if nums[capi.EMQGO_EOPT_DELAY_MS], err = durationMS("WithDelay: the delay", cfg.delay, 0, delayMax); err != nil {
		return cfg, nil, "", err
	}
	if nums[capi.EMQGO_EOPT_DEDUP_WINDOW_MS], err = durationMS("WithDedupWindow: the window", cfg.window, 0,
		dedupWindowMax); err != nil {
		return cfg, nil, "", err
	}
	if nums[capi.EMQGO_EOPT_KEEP_MS], err = durationMS("WithKeep: the time", cfg.keep, 0, keepMax); err != nil {
		return cfg, nil, "", err
	}
	if cfg.keyed && (cfg.key == "" || hasNUL(cfg.key)) {
		return cfg, nil, "", invalid("WithKey: an idempotency key must be 1..256 bytes without NUL")
	}
	nums[capi.EMQGO_EOPT_MAX_ATTEMPTS] = int64(cfg.maxAttempts)
	nums[capi.EMQGO_EOPT_KEEP_LAST] = int64(cfg.keepLast)
	nums[capi.EMQGO_EOPT_COST_ESTIMATE] = int64(min(cfg.estimate, 1<<63-1))
	if !cfg.at.IsZero() {
		if cfg.delay != 0 {
			return cfg, nil, "", invalid("WithAt and WithDelay exclude each other")
		}
		nums[capi.EMQGO_EOPT_AT_MS] = atMS(cfg.at)
	}
	if err = cfg.life.numbers(nums); err != nil {
		return cfg, nil, "", err
	}
	return cfg, nums, headers, nil
}

// leaseOf checks the queue's name and a lease, before a call that takes one.
func (q *Queue) leaseOf(lease time.Duration) (int64, error) {
	if err := q.checkNames(); err != nil {
		return 0, err
	}
	return leaseMS(lease)
}

// checkNames refuses names a C string cannot carry (an embedded NUL);
// everything else is checked by the C library before any I/O.
func (q *Queue) checkNames(groups ...string) error {
	if hasNUL(q.name) {
		return invalid("queue name contains a NUL byte")
	}
	for _, g := range groups {
		if hasNUL(g) {
			return invalid("group name contains a NUL byte")
		}
	}
	return nil
}

// Enqueue adds one job to lane group and returns its id. Ids grow in mint
// order. The payload is binary and may hold NUL bytes. Every option
// combines with every other. With WithKey, a key seen within its window
// enqueues nothing: the first job's id comes back with ErrDuplicate.
func (q *Queue) Enqueue(ctx context.Context, group string, payload []byte, opts ...EnqueueOption) (uint64, error) {
	if err := q.checkNames(group); err != nil {
		return 0, err
	}
	cfg, nums, headers, err := enqueueOptions(opts)
	if err != nil {
		return 0, err
	}
	var id [1]uint64
	rc, err := q.c.do(ctx, func(h capi.Client) int {
		return capi.Enqueue(h, q.name, group, payload, nums, cfg.key, cfg.name, headers, id[:])
	})
	if err == nil && Code(rc) == CodeDuplicate {
		err = ErrDuplicate
	}
	return id[0], err
}

// atMS is t in server ms; a time before the epoch is 1 (long past: now).
func atMS(t time.Time) int64 {
	if ms := t.UnixMilli(); ms > 0 {
		return ms
	}
	return 1
}

// BatchJob is one job of EnqueueBatch.
type BatchJob struct {
	Group   string
	Payload []byte
}

// KeyedJob is one job of EnqueueBatchDedup: a BatchJob with an idempotency
// key ("" = none).
type KeyedJob struct {
	Group   string
	Payload []byte
	Key     string
}

// EnqueueBatch adds all jobs in one round trip (one script call), in order,
// with the same options, and returns their ids. All or nothing: a refused
// batch writes nothing. A batch holds at most 10,000 jobs (ECHOMQ_BATCH_MAX);
// a larger one is refused with ErrTooLarge, since splitting it would lose
// the all-or-nothing promise.
func (q *Queue) EnqueueBatch(ctx context.Context, jobs []BatchJob, opts ...EnqueueOption) ([]uint64, error) {
	keyed := make([]KeyedJob, len(jobs))
	for i, j := range jobs {
		keyed[i] = KeyedJob{Group: j.Group, Payload: j.Payload}
	}
	ids, _, err := q.EnqueueBatchDedup(ctx, keyed, opts...)
	return ids, err
}

// EnqueueBatchDedup is EnqueueBatch for jobs with idempotency keys
// (KeyedJob.Key): a job whose key the queue saw within the window
// (WithDedupWindow), or an earlier job of the batch has, is not enqueued;
// its id is the first job's and duplicate[i] is true.
func (q *Queue) EnqueueBatchDedup(ctx context.Context, jobs []KeyedJob, opts ...EnqueueOption) (ids []uint64, duplicate []bool, err error) {
	if err := q.checkNames(); err != nil {
		return nil, nil, err
	}
	cfg, nums, headers, err := enqueueOptions(opts)
	if err != nil {
		return nil, nil, err
	}
	if cfg.keyed {
		return nil, nil, invalid("a batch takes its idempotency keys per job (KeyedJob.Key), not WithKey")
	}
	b := capi.Batch_create()
	if b == nil || b.Swigcptr() == 0 {
		return nil, nil, &Error{Code: CodeNoMem, Msg: "cannot allocate a batch"}
	}
	live.add(&live.batches, 1)
	defer func() {
		capi.Batch_free(b)
		live.add(&live.batches, -1)
	}()
	for i, j := range jobs {
		if hasNUL(j.Group) || hasNUL(j.Key) {
			return nil, nil, invalid("group name or key of batch entry contains a NUL byte")
		}
		if rc := capi.Batch_add_keyed(b, j.Group, j.Payload, j.Key); rc != 0 {
			return nil, nil, &Error{Code: Code(rc), Msg: batchEntryMsg(i, rc)}
		}
	}
	_, err = q.c.do(ctx, func(h capi.Client) int { return capi.Enqueue_batch(h, q.name, b, nums, cfg.name, headers) })
	if failed(err) {
		return nil, nil, err
	}
	ids = make([]uint64, len(jobs))
	duplicate = make([]bool, len(jobs))
	for i := range ids {
		ids[i] = capi.Batch_id(b, int64(i))
		duplicate[i] = capi.Batch_duplicate(b, int64(i)) != 0
	}
	return ids, duplicate, err // err: nil, or ErrUnconfirmed beside the results
}

func batchEntryMsg(i, rc int) string {
	return "batch entry " + strconv.Itoa(i) + ": " + capi.Strerror(rc)
}

// Claim leases one job for lease: every claim rotates the ring one step and
// serves the lane it rotated to. It returns ErrEmpty when no lane is
// serviceable.
func (q *Queue) Claim(ctx context.Context, lease time.Duration) (*Job, error) {
	ms, err := q.leaseOf(lease)
	if err != nil {
		return nil, err
	}
	var out [1]uint64
	rc, err := q.c.do(ctx, func(h capi.Client) int {
		return capi.Claim(h, q.name, ms, out[:])
	})
	return q.claimed(rc, err, out[0])
}

// WClaim leases up to max jobs from one lane in one turn of the ring:
// K = min(weight, pending depth, limit - active, max), in mint order. It
// returns ErrEmpty when no lane is serviceable.
func (q *Queue) WClaim(ctx context.Context, lease time.Duration, max int) ([]*Job, error) {
	if max < 1 || max > wclaimMax {
		return nil, invalid("wclaim max must be 1.." + strconv.Itoa(wclaimMax))
	}
	ms, err := q.leaseOf(lease)
	if err != nil {
		return nil, err
	}
	var out [1]uint64
	rc, err := q.c.do(ctx, func(h capi.Client) int {
		return capi.Wclaim(h, q.name, ms, uint(max), out[:])
	})
	return claimedList(q, out[0], rc, err)
}

// ClaimBatch leases up to n jobs (1..10,000) in one call. Unweighted, it
// serves exactly the jobs, order and tokens of n successive Claims from the
// same state (one job per lane per turn); weighted, each turn serves
// min(weight, depth, limit - active) jobs of its lane as WClaim does, until
// n are taken (the last turn may be cut short). It returns ErrEmpty when
// no lane is serviceable.
func (q *Queue) ClaimBatch(ctx context.Context, lease time.Duration, n int, weighted bool) ([]*Job, error) {
	if n < 1 || n > batchMax {
		return nil, invalid("claim batch n must be 1.." + strconv.Itoa(batchMax))
	}
	w := 0
	if weighted {
		w = 1
	}
	ms, err := q.leaseOf(lease)
	if err != nil {
		return nil, err
	}
	var out [1]uint64
	rc, err := q.c.do(ctx, func(h capi.Client) int {
		return capi.Claim_batch(h, q.name, ms, uint(n), w, out[:])
	})
	return claimedList(q, out[0], rc, err)
}

// BClaimSlice bounds one blocking wait on the server, so that a
// cancellation that misses the call in progress costs at most this long.
const BClaimSlice = time.Second

// BClaim leases one job, waiting on the server (no polling) until one is
// ready or ctx is done; it then returns ctx.Err(). The end of ctx interrupts
// the wait at once (echomq_client_cancel), and an interrupted wait has
// claimed nothing. Each server-side wait lasts at most BClaimSlice, so a
// cancellation that misses the wait in progress costs at most that.
func (q *Queue) BClaim(ctx context.Context, lease time.Duration) (*Job, error) {
	leaseMs, err := q.leaseOf(lease)
	if err != nil {
		return nil, err
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		wait := BClaimSlice
		if dl, ok := ctx.Deadline(); ok {
			if rem := time.Until(dl); rem < wait {
				wait = rem
			}
		}
		if wait < time.Millisecond {
			wait = time.Millisecond
		}
		var out [1]uint64
		rc, err := q.c.doBlocking(ctx, func(h capi.Client) int {
			return capi.Bclaim(h, q.name, leaseMs, ceilMS(wait), out[:])
		})
		job, err := q.claimed(rc, err, out[0])
		if errors.Is(err, ErrEmpty) {
			continue
		}
		var ce *ctxError
		if errors.As(err, &ce) {
			return nil, ce.ctx
		}
		return job, err
	}
}

// claimed turns the result of a single-job claim into (*Job, error).
func (q *Queue) claimed(rc int, err error, addr uint64) (*Job, error) {
	if failed(err) {
		takeJob(q, addr) // a failed call hands out nothing, but free it if it did
		return nil, err
	}
	job := takeJob(q, addr)
	if Code(rc) == CodeEmpty || job == nil {
		if err != nil { // an AckClaim whose ack was not confirmed, and nothing to claim
			return nil, errors.Join(ErrEmpty, err)
		}
		return nil, ErrEmpty
	}
	return job, err
}

const (
	wclaimMax = 10000
	batchMax  = 10000
)

// claimedList is what a claim of a job list returned: the jobs of list
// handle h (freed on every path, error or not), ErrEmpty for none, or the
// call's error (an ErrUnconfirmed comes back with the jobs).
func claimedList(q *Queue, h uint64, rc int, err error) ([]*Job, error) {
	jobs := takeJobList(q, h)
	if failed(err) {
		return nil, err
	}
	if Code(rc) == CodeEmpty || len(jobs) == 0 {
		return nil, ErrEmpty
	}
	return jobs, err
}
