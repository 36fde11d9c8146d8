package echomq

import (
	"context"
	"time"

	"github.com/echomq/echomq/bindings/go/internal/capi"
)

// Lane control. Each call fixes ring membership at once and applies to the
// lane's existing backlog; a lane with no jobs yet can be configured.

// Weight sets the lane's throughput share per ring turn under WClaim
// (1..1,000,000).
func (q *Queue) Weight(ctx context.Context, group string, w uint32) error {
	return q.laneCall(ctx, group, func(h capi.Client) int { return capi.Set_weight(h, q.name, group, uint(w)) })
}

// ClearWeight puts the lane back on the queue's default weight.
func (q *Queue) ClearWeight(ctx context.Context, group string) error {
	return q.laneCall(ctx, group, func(h capi.Client) int { return capi.Clear_weight(h, q.name, group) })
}

// Limit sets the lane's concurrency ceiling: at most n leased jobs
// (1..1,000,000,000).
func (q *Queue) Limit(ctx context.Context, group string, n uint32) error {
	return q.laneCall(ctx, group, func(h capi.Client) int { return capi.Set_limit(h, q.name, group, uint(n)) })
}

// ClearLimit puts the lane back on the queue's default limit (unlimited
// unless a default is set).
func (q *Queue) ClearLimit(ctx context.Context, group string) error {
	return q.laneCall(ctx, group, func(h capi.Client) int { return capi.Clear_limit(h, q.name, group) })
}

// Rate limits the lane to jobs starts per `per` (1 ms .. 24 h), in bursts of
// up to burst (0 = jobs): a token bucket on the server's clock. A lane out of
// tokens leaves the ring and rejoins by itself when its next token is due.
func (q *Queue) Rate(ctx context.Context, group string, jobs uint32, per time.Duration, burst uint32) error {
	ms, err := durationMS("the rate's period", per, time.Millisecond, ratePeriodMax)
	if err != nil {
		return err
	}
	return q.laneCall(ctx, group, func(h capi.Client) int {
		return capi.Set_rate(h, q.name, group, uint(jobs), ms, uint(burst))
	})
}

// ClearRate puts the lane back on the queue's default rate (none unless set).
func (q *Queue) ClearRate(ctx context.Context, group string) error {
	return q.laneCall(ctx, group, func(h capi.Client) int { return capi.Clear_rate(h, q.name, group) })
}

// DefaultRate sets the rate of lanes without their own; jobs 0 clears it.
func (q *Queue) DefaultRate(ctx context.Context, jobs uint32, per time.Duration, burst uint32) error {
	if jobs == 0 {
		per = time.Millisecond
	}
	ms, err := durationMS("the rate's period", per, time.Millisecond, ratePeriodMax)
	if err != nil {
		return err
	}
	return q.laneCall(ctx, "", func(h capi.Client) int {
		return capi.Set_default_rate(h, q.name, uint(jobs), ms, uint(burst))
	})
}

// Throttle starts no job of the lane for d (at least 1 ms): for a worker told
// to back off by a downstream service. Then the lane runs again.
func (q *Queue) Throttle(ctx context.Context, group string, d time.Duration) error {
	ms, err := durationMS("the throttle", d, time.Millisecond, delayMax)
	if err != nil {
		return err
	}
	return q.laneCall(ctx, group, func(h capi.Client) int { return capi.Throttle(h, q.name, group, ms) })
}

// SetCostMode turns the queue's cost mode on (quantum >= 1, in cost units:
// µs of handler time unless handlers report their own) or off (0): lanes
// then share the cost of their work instead of their job count
// (docs/operations.md, "Cost mode").
func (q *Queue) SetCostMode(ctx context.Context, quantum uint64) error {
	return q.laneCall(ctx, "", func(h capi.Client) int { return capi.Set_cost_mode(h, q.name, quantum) })
}

// SetWaitFigures turns the queue's per-lane wait figures on with a window
// of `window` (whole seconds, 1 s..24 h) or off (0): every claim then
// records each lane's wait from enqueue to first delivery and its
// deliveries, and LaneInfo reports them (docs/architecture.md, "Wait
// figures"). Turning them off, or changing the window, drops them.
func (q *Queue) SetWaitFigures(ctx context.Context, window time.Duration) error {
	if window < 0 || window%time.Second != 0 || window > time.Duration(capi.ECHOMQ_WAIT_WINDOW_MAX_S)*time.Second {
		return invalid("wait figures window must be 0 (off) or whole seconds up to 24h")
	}
	s := uint(window / time.Second)
	return q.laneCall(ctx, "", func(h capi.Client) int { return capi.Set_wait_figures(h, q.name, s) })
}

// WaitFigures is the queue's wait figures window (0 = off).
func (q *Queue) WaitFigures(ctx context.Context) (time.Duration, error) {
	var out [1]uint64
	err := q.laneCall(ctx, "", func(h capi.Client) int { return capi.Get_wait_figures(h, q.name, out[:]) })
	return time.Duration(out[0]) * time.Second, err
}

// CostMode is the queue's cost quantum (0 = cost mode off).
func (q *Queue) CostMode(ctx context.Context) (uint64, error) {
	var out [1]uint64
	err := q.laneCall(ctx, "", func(h capi.Client) int { return capi.Get_cost_mode(h, q.name, out[:]) })
	return out[0], err
}

// Charge charges lane group cost units of work done (cost mode; ignored
// otherwise): how a job claimed by hand reports what it cost.
func (q *Queue) Charge(ctx context.Context, group string, cost uint64) error {
	return q.laneCall(ctx, group, func(h capi.Client) int { return capi.Charge(h, q.name, group, cost) })
}

// Cap limits how many jobs may wait in the lane (pending + delayed); an
// enqueue past it fails with ErrFull and writes nothing.
func (q *Queue) Cap(ctx context.Context, group string, n uint64) error {
	return q.laneCall(ctx, group, func(h capi.Client) int { return capi.Set_cap(h, q.name, group, n) })
}

// ClearCap puts the lane back on the queue's default cap (none unless set).
func (q *Queue) ClearCap(ctx context.Context, group string) error {
	return q.laneCall(ctx, group, func(h capi.Client) int { return capi.Clear_cap(h, q.name, group) })
}

// DefaultCap sets the cap of lanes without their own; 0 clears it.
func (q *Queue) DefaultCap(ctx context.Context, n uint64) error {
	return q.laneCall(ctx, "", func(h capi.Client) int { return capi.Set_default_cap(h, q.name, n) })
}

// Pause stops serving the lane; it keeps its jobs. Idempotent.
func (q *Queue) Pause(ctx context.Context, group string) error {
	return q.laneCall(ctx, group, func(h capi.Client) int { return capi.Pause(h, q.name, group) })
}

// Resume serves a paused lane again. Idempotent.
func (q *Queue) Resume(ctx context.Context, group string) error {
	return q.laneCall(ctx, group, func(h capi.Client) int { return capi.Resume(h, q.name, group) })
}

// DefaultWeight sets the weight of lanes without their own (1 = plain
// rotation).
func (q *Queue) DefaultWeight(ctx context.Context, w uint32) error {
	return q.laneCall(ctx, "", func(h capi.Client) int { return capi.Set_default_weight(h, q.name, uint(w)) })
}

// DefaultLimit sets the limit of lanes without their own; 0 clears it
// (unlimited).
func (q *Queue) DefaultLimit(ctx context.Context, n uint32) error {
	return q.laneCall(ctx, "", func(h capi.Client) int { return capi.Set_default_limit(h, q.name, uint(n)) })
}

// DefaultMaxAttempts sets the attempt budget of jobs enqueued without
// WithMaxAttempts.
func (q *Queue) DefaultMaxAttempts(ctx context.Context, n uint32) error {
	return q.laneCall(ctx, "", func(h capi.Client) int { return capi.Set_default_max_attempts(h, q.name, uint(n)) })
}

func (q *Queue) laneCall(ctx context.Context, group string, fn func(h capi.Client) int) error {
	if err := q.checkNames(group); err != nil {
		return err
	}
	_, err := q.c.do(ctx, fn)
	return err
}
