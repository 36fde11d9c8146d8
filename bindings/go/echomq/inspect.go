package echomq

import (
	"context"
	"math"
	"strconv"
	"time"

	"github.com/echomq/echomq/bindings/go/internal/capi"
)

// Stats are queue-wide figures.
type Stats struct {
	Lanes   uint64 // lanes known: with live jobs or with settings (a tenant's entry "T/" is not one)
	Ring    uint64 // plain lanes and tenants serviceable now (the outer ring)
	Pending uint64 // jobs waiting in lanes
	Leased  uint64 // jobs under lease
	Delayed uint64 // jobs waiting for a due time
	Dead    uint64 // dead-lettered jobs
	Paused  uint64 // paused lanes and tenants

	EnqueuedTotal uint64 // counters since the queue was created
	ClaimedTotal  uint64 // deliveries
	AckedTotal    uint64
	FailedTotal   uint64 // fail calls and expired leases
	DeadTotal     uint64

	DefaultWeight      uint32
	DefaultLimit       uint32 // 0 = unlimited
	DefaultMaxAttempts uint32
	ServerTime         time.Time
	Tenants            uint64 // tenants with a lane or a setting listed (0.5.0)
	CanceledTotal      uint64 // jobs canceled (Queue.Cancel) (0.5.0)
	ExpiredTotal       uint64 // jobs whose start deadline passed (WithTTL, WithExpiresAt) (0.5.0)
	Bursting           uint64 // lanes and tenants in the burst ring now (0.5.0)
}

// Indexes of the numbers the capi shims copy out (see echomq.i).
const (
	jobNums   = 14
	statsNums = 20
	laneNums  = 32
)

// Stats reads the queue's figures.
func (q *Queue) Stats(ctx context.Context) (Stats, error) {
	if err := q.checkNames(); err != nil {
		return Stats{}, err
	}
	var n [statsNums]int64
	if _, err := q.c.do(ctx, func(h capi.Client) int { return capi.Stats(h, q.name, n[:]) }); err != nil {
		return Stats{}, err
	}
	u := func(i int) uint64 { return uint64(n[i]) }
	return Stats{
		Lanes: u(0), Ring: u(1), Pending: u(2), Leased: u(3), Delayed: u(4), Dead: u(5), Paused: u(6),
		EnqueuedTotal: u(7), ClaimedTotal: u(8), AckedTotal: u(9), FailedTotal: u(10), DeadTotal: u(11),
		DefaultWeight: uint32(n[12]), DefaultLimit: uint32(n[13]), DefaultMaxAttempts: uint32(n[14]),
		ServerTime: msTime(n[15]), Tenants: u(16),
		CanceledTotal: u(capi.EMQGO_STATS_CANCELED_TOTAL), ExpiredTotal: u(capi.EMQGO_STATS_EXPIRED_TOTAL),
		Bursting: u(capi.EMQGO_STATS_BURSTING),
	}, nil
}

// LaneInfo describes one lane.
type LaneInfo struct {
	Group           string
	Depth           uint64 // pending jobs
	Active          uint64 // leased jobs
	Limit           uint32 // effective ceiling, 0 = unlimited
	Weight          uint32 // effective weight
	LimitIsDefault  bool   // the limit comes from the queue default
	WeightIsDefault bool
	Paused          bool
	Serviceable     bool      // in the ring now
	Served          uint64    // deliveries from this lane
	OldestEnqueued  time.Time // enqueue time of the head job; zero if none
	Known           bool      // the lane has live jobs or settings of its own
	Delayed         uint64    // jobs of the lane waiting for a due time
	Rate            *Rate     // effective rate limit, nil = none
	RateIsDefault   bool      // the rate comes from the queue default
	Tokens          float64   // jobs it may start now; -1 without a rate
	NextToken       time.Time // when it may next be served (out of tokens or throttled); zero = now
	Cap             uint64    // effective size cap (pending + delayed), 0 = none
	CapIsDefault    bool
	// Tenants: the tenant T of a lane "T/L" and of T's own row "T/"
	// (IsTenant); "" for a lane of no tenant.
	Tenant   string
	IsTenant bool
	// Wait figures (Queue.SetWaitFigures), over the last one to two windows;
	// -1 while they are off or the window has none. WaitP50/WaitP99: wait
	// from enqueue to first delivery (the upper edge of a sqrt(2)-wide
	// bucket), from WaitSamples first deliveries; WindowClaims: deliveries
	// in the window; Share: the lane's part of the queue's deliveries (of
	// the cost charged, in cost mode); FairShare: the part its weight
	// entitles it to among the lanes served.
	WaitSamples  uint64
	WaitP50      time.Duration
	WaitP99      time.Duration
	WindowClaims uint64
	Share        float64
	FairShare    float64
	// Cost mode: the cost charged divided by the weight (-1 = no charge),
	// and whether the lane sits out, off the ring, over its share.
	CostV   float64
	SitsOut bool
	// Burst is the lane's burst ceiling (0 = none; Queue.SetLimitBurst);
	// Bursting is true while it is at or above its limit, below its burst,
	// served only when no lane below its own limit has work (0.5.0).
	Burst    uint32
	Bursting bool
}

// Rate is a lane's rate limit: at most Jobs job starts per Per, in bursts of
// up to Burst (a token bucket on the server's clock).
type Rate struct {
	Jobs  uint32
	Per   time.Duration
	Burst uint32
}

func laneFromNumbers(group string, n []int64) LaneInfo {
	l := LaneInfo{
		Group: group, Depth: uint64(n[0]), Active: uint64(n[1]),
		Limit: uint32(n[2]), Weight: uint32(n[3]),
		LimitIsDefault: n[4] != 0, WeightIsDefault: n[5] != 0,
		Paused: n[6] != 0, Serviceable: n[7] != 0,
		Served: uint64(n[8]), OldestEnqueued: msTime(n[9]),
		Known: n[10] != 0, Delayed: uint64(n[11]),
		RateIsDefault: n[15] != 0, Tokens: float64(n[16]) / 1000,
		NextToken: msTime(n[17]), Cap: uint64(n[18]), CapIsDefault: n[19] != 0,
	}
	if n[12] > 0 {
		l.Rate = &Rate{Jobs: uint32(n[12]), Per: time.Duration(n[13]) * time.Millisecond, Burst: uint32(n[14])}
	}
	if n[16] < 0 {
		l.Tokens = -1
	}
	if t := int(n[20]); t > 0 && t <= len(group) {
		l.Tenant = group[:t]
	}
	f := func(i int) float64 { return math.Float64frombits(uint64(n[i])) }
	dur := func(ms float64) time.Duration {
		if ms < 0 {
			return -1
		}
		return time.Duration(ms * float64(time.Millisecond))
	}
	l.IsTenant = n[21] != 0
	l.WaitSamples = uint64(n[22])
	l.WaitP50, l.WaitP99 = dur(f(23)), dur(f(24))
	l.WindowClaims = uint64(n[25])
	l.Share, l.FairShare, l.CostV = f(26), f(27), f(28)
	l.SitsOut = n[29] != 0
	l.Burst, l.Bursting = uint32(n[capi.EMQGO_LANE_BURST]), n[capi.EMQGO_LANE_BURSTING] != 0
	return l
}

// Lane reads one lane. An unknown lane reports zeros and the defaults:
// lanes exist implicitly.
func (q *Queue) Lane(ctx context.Context, group string) (LaneInfo, error) {
	if err := q.checkNames(group); err != nil {
		return LaneInfo{}, err
	}
	var n [laneNums]int64
	if _, err := q.c.do(ctx, func(h capi.Client) int { return capi.Lane(h, q.name, group, n[:]) }); err != nil {
		return LaneInfo{}, err
	}
	return laneFromNumbers(group, n[:]), nil
}

// Lanes lists up to count (1..10,000) lanes whose names sort after `after`
// ("" = from the start), in byte order. next is the cursor for the following
// page, "" when this page is the last.
func (q *Queue) Lanes(ctx context.Context, after string, count int) (lanes []LaneInfo, next string, err error) {
	if err := q.checkNames(after); err != nil {
		return nil, "", err
	}
	if count < 1 || count > pageMax {
		return nil, "", invalid("lane page count must be 1.." + strconv.Itoa(pageMax))
	}
	var out [1]uint64
	_, err = q.c.do(ctx, func(h capi.Client) int {
		return capi.Lanes(h, q.name, after, int64(count), out[:])
	})
	lanes, next = takeLaneList(out[0]) // freed on every path, error or not
	if err != nil {
		return nil, "", err
	}
	return lanes, next, nil
}

// Dead lists dead-lettered jobs, oldest death first: count (1..10,000)
// from offset. A dead job's Token is its last delivery's fencing token, its
// Attempt the attempts of its last budget.
func (q *Queue) Dead(ctx context.Context, offset uint64, count int) ([]*Job, error) {
	if err := q.checkNames(); err != nil {
		return nil, err
	}
	if count < 1 || count > pageMax {
		return nil, invalid("dead page count must be 1.." + strconv.Itoa(pageMax))
	}
	var out [1]uint64
	_, err := q.c.do(ctx, func(h capi.Client) int {
		return capi.Dead(h, q.name, offset, int64(count), out[:])
	})
	jobs := takeJobList(q, out[0]) // freed on every path, error or not
	if err != nil {
		return nil, err
	}
	return jobs, nil
}

// Redrive moves the given dead jobs back to their lanes with a fresh
// attempt budget and returns how many moved; ids that are not dead are
// skipped. With no ids it redrives every dead job.
func (q *Queue) Redrive(ctx context.Context, ids ...uint64) (uint64, error) {
	if err := q.checkNames(); err != nil {
		return 0, err
	}
	var out [1]uint64
	_, err := q.c.do(ctx, func(h capi.Client) int {
		if len(ids) == 0 {
			return capi.Redrive_all(h, q.name, out[:])
		}
		return capi.Redrive(h, q.name, ids, out[:])
	})
	return out[0], err
}

// Verify checks the queue's invariants (ring = serviceable lanes, each
// once; active counts = leased jobs, within limits; every job in exactly
// one place) and returns one line per violation: none means healthy. It is
// an operator's call, O(jobs + lanes) on the server.
func (q *Queue) Verify(ctx context.Context) ([]string, error) {
	return q.report(ctx, func(h capi.Client, out []uint64) int { return capi.Verify(h, q.name, out) })
}

// report runs a call of the queue that hands back a report (its address in
// out[0]) and returns the report's lines.
func (q *Queue) report(ctx context.Context, fn func(h capi.Client, out []uint64) int) ([]string, error) {
	if err := q.checkNames(); err != nil {
		return nil, err
	}
	var out [1]uint64
	_, err := q.c.do(ctx, func(h capi.Client) int { return fn(h, out[:]) })
	lines := takeReport(out[0]) // freed on every path, error or not
	if err != nil {
		return nil, err
	}
	return lines, nil
}

// Repair rebuilds the ring, the active and live counts, the lane directory
// and the counters from where the jobs really are (docs/operations.md,
// "Repair"), and returns one line per change. A dry run unless apply: then
// nothing is written. It walks the queue in bounded steps of about step
// items (1..10000; 0 = 1000); stop the workers first.
func (q *Queue) Repair(ctx context.Context, apply bool, step int) ([]string, error) {
	if err := q.checkNames(); err != nil {
		return nil, err
	}
	if step == 0 {
		step = 1000
	}
	if step < 0 {
		return nil, invalid("repair step must be 1..10000")
	}
	flag := 0
	if apply {
		flag = 1
	}
	var lines []string
	cursor := ""
	for {
		var out [1]uint64
		_, err := q.c.do(ctx, func(h capi.Client) int {
			return capi.Repair(h, q.name, flag, cursor, int64(step), out[:])
		})
		next := ""
		if out[0] != 0 {
			next = capi.Report_cursor(capi.SwigcptrReport(uintptr(out[0])))
		}
		report := takeReport(out[0]) // freed on every path, error or not
		if err != nil {
			return nil, err
		}
		lines = append(lines, report...)
		if next == "" {
			return lines, nil
		}
		cursor = next
	}
}

// Doctor checks the server the queue runs on and returns one line per
// check, "<ok|warn|fail> <check>: <finding>; <advice>": the version (the
// 2025 Lua sandbox fixes), maxmemory-policy, persistence, replicas,
// cluster mode, and the operations aclUser ("" = the connected user) may
// run on the queue. It only reads.
func (q *Queue) Doctor(ctx context.Context, aclUser string) ([]string, error) {
	return q.report(ctx, func(h capi.Client, out []uint64) int { return capi.Doctor(h, q.name, aclUser, out) })
}

const pageMax = 10000
