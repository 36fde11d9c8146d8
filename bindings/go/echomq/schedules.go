package echomq

import (
	"context"
	"time"

	"github.com/echomq/echomq/bindings/go/internal/capi"
)

// Periodic jobs: a queue's named schedules. A schedule ticks every N, or on
// a cron expression in a time zone; each tick becomes one job on the
// schedule's lane. There is no scheduler process: the claims that workers
// make anyway fire the ticks that are due, in the same script that moves
// the schedule on, so each tick makes one job however many processes claim
// (docs/operations.md, "Periodic jobs"). Times are the server's clock.

// The numbers below are the C API's (echomq/schedules.h): a test reads
// them from C (TestScheduleNumbersAreTheCAPIs).

// Missed says what happens to ticks nobody claimed in time: the ticks due
// by the time a claim comes are handled together, and only the latest may
// fire.
type Missed int

const (
	// MissedFireOnce fires the latest due tick once, however late (default).
	MissedFireOnce Missed = 0
	// MissedSkip fires it only within ScheduleSpec.Grace of its time.
	MissedSkip Missed = 1
)

// Overlap says what happens to a tick while the previous tick's job still
// waits or runs.
type Overlap int

const (
	OverlapFire Overlap = 0 // fire anyway (default)
	OverlapSkip Overlap = 1 // skip the tick
)

// ScheduleChange is what UpsertSchedule did.
type ScheduleChange int

const (
	ScheduleUnchanged ScheduleChange = 0 // the same spec was there
	ScheduleCreated   ScheduleChange = 1
	ScheduleUpdated   ScheduleChange = 2
)

// ScheduleSpec is what a schedule does: exactly one of Every and Cron, the
// lane and payload of each tick's job, the job's options, and the
// schedule's life. capi/include/echomq/schedules.h documents each field.
type ScheduleSpec struct {
	Every time.Duration // a tick every Every (whole ms), from Start or one period after the upsert
	Cron  string        // or a cron expression: 5 fields, or 6 with seconds first; @daily and the like
	Zone  string        // cron's zone: "" = UTC, a fixed offset ("+05:30"), or an IANA name ("Europe/Paris")

	Lane    string // each tick's job: its lane (a group, or a tenant's lane "T/L")
	Payload []byte

	MaxAttempts  uint32        // 0 = the queue's default when the tick fires
	Keep         time.Duration // its own retention (as WithKeep)
	KeepLast     uint64
	CostEstimate uint64 // as WithCostEstimate

	Start, End time.Time // no tick before Start or after End (zero = none)
	Limit      uint64    // it ends after Limit fired ticks (0 = none)
	Missed     Missed
	Grace      time.Duration // MissedSkip: how late a tick may fire (0 = 1 s)
	Overlap    Overlap
}

// Schedule is a schedule as read: its spec, then its state.
type Schedule struct {
	Name string
	ScheduleSpec
	Paused bool
	Ended  string // "" while it may fire; "limit" or "end"
	// NextAt is its next tick; LastTick the latest tick handled (fired or
	// skipped); FiredTick, FiredAt and FiredJob the latest tick that fired,
	// when, and its job, which is now in FiredState (0: gone, acked).
	NextAt, LastTick, FiredTick, FiredAt time.Time
	FiredJob                             uint64
	FiredState                           JobState
	Runs, Skips                          uint64
	CreatedAt, UpdatedAt                 time.Time
}

// Lateness is how late the latest fired tick fired (FiredAt - FiredTick).
func (s *Schedule) Lateness() time.Duration {
	if s.FiredAt.IsZero() {
		return 0
	}
	return s.FiredAt.Sub(s.FiredTick)
}

func timeMS(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// UpsertSchedule creates schedule name or changes it. The same spec again
// changes nothing (ScheduleUnchanged), so every process may upsert its
// schedules at boot. A new timing (Every, Cron, Zone, Start) re-arms it
// from now; any other change keeps its next tick, which it returns. Bad
// input is ErrInvalid before any I/O (a cron expression's message names
// its bad field), or from the server with nothing written (a spec that
// never fires).
func (q *Queue) UpsertSchedule(ctx context.Context, name string, spec ScheduleSpec) (ScheduleChange, time.Time, error) {
	if err := q.checkNames(spec.Lane); err != nil {
		return 0, time.Time{}, err
	}
	if hasNUL(name) || hasNUL(spec.Cron) || hasNUL(spec.Zone) {
		return 0, time.Time{}, invalid("schedule name, cron or zone contains a NUL byte")
	}
	if spec.Every < 0 || spec.Keep < 0 || spec.Grace < 0 {
		return 0, time.Time{}, invalid("Every, Keep and Grace may not be negative")
	}
	nums := make([]int64, capi.EMQGO_SPEC_NUMS)
	nums[capi.EMQGO_SPEC_EVERY_MS] = ceilMS(spec.Every)
	nums[capi.EMQGO_SPEC_MAX_ATTEMPTS] = int64(spec.MaxAttempts)
	nums[capi.EMQGO_SPEC_KEEP_MS] = ceilMS(spec.Keep)
	nums[capi.EMQGO_SPEC_KEEP_LAST] = int64(spec.KeepLast)
	nums[capi.EMQGO_SPEC_COST_ESTIMATE] = int64(spec.CostEstimate)
	nums[capi.EMQGO_SPEC_START_AT_MS] = timeMS(spec.Start)
	nums[capi.EMQGO_SPEC_END_AT_MS] = timeMS(spec.End)
	nums[capi.EMQGO_SPEC_LIMIT] = int64(spec.Limit)
	nums[capi.EMQGO_SPEC_MISSED] = int64(spec.Missed)
	nums[capi.EMQGO_SPEC_GRACE_MS] = ceilMS(spec.Grace)
	nums[capi.EMQGO_SPEC_OVERLAP] = int64(spec.Overlap)
	var out [2]int64
	_, err := q.c.do(ctx, func(h capi.Client) int {
		return capi.Schedule_upsert(h, q.name, name, spec.Cron, spec.Zone, spec.Lane, spec.Payload, nums, out[:])
	})
	if failed(err) {
		return 0, time.Time{}, err
	}
	return ScheduleChange(out[0]), msTime(out[1]), err
}

// RemoveSchedule removes schedule name (the jobs it made stay);
// ErrNotFound when there is none.
func (q *Queue) RemoveSchedule(ctx context.Context, name string) error {
	return q.byScheduleName(ctx, name, capi.Schedule_remove)
}

// PauseSchedule pauses schedule name: no tick fires while it is paused.
func (q *Queue) PauseSchedule(ctx context.Context, name string) error {
	return q.byScheduleName(ctx, name, capi.Schedule_pause)
}

// ResumeSchedule resumes schedule name at its first tick after now.
func (q *Queue) ResumeSchedule(ctx context.Context, name string) error {
	return q.byScheduleName(ctx, name, capi.Schedule_resume)
}

func (q *Queue) byScheduleName(ctx context.Context, name string, fn func(capi.Client, string, string) int) error {
	if err := q.checkNames(); err != nil {
		return err
	}
	if hasNUL(name) {
		return invalid("schedule name contains a NUL byte")
	}
	_, err := q.c.do(ctx, func(h capi.Client) int { return fn(h, q.name, name) })
	return err
}

// Schedule reads schedule name; ErrNotFound when there is none.
func (q *Queue) Schedule(ctx context.Context, name string) (Schedule, error) {
	if name == "" {
		return Schedule{}, invalid("schedule name is empty")
	}
	list, _, err := q.readSchedules(ctx, name, "", 1)
	if err != nil {
		return Schedule{}, err
	}
	if len(list) != 1 {
		return Schedule{}, &Error{Code: CodeProto, Msg: "schedule: unexpected reply"}
	}
	return list[0], nil
}

// Schedules reads every schedule of the queue, by name, a page at a time.
func (q *Queue) Schedules(ctx context.Context) ([]Schedule, error) {
	var all []Schedule
	after := ""
	for {
		page, next, err := q.readSchedules(ctx, "", after, 1000)
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		if next == "" {
			return all, nil
		}
		after = next
	}
}

func (q *Queue) readSchedules(ctx context.Context, name, after string, count int64) ([]Schedule, string, error) {
	if err := q.checkNames(); err != nil {
		return nil, "", err
	}
	if hasNUL(name) || hasNUL(after) {
		return nil, "", invalid("schedule name contains a NUL byte")
	}
	var out [1]uint64
	_, err := q.c.do(ctx, func(h capi.Client) int { return capi.Schedules(h, q.name, name, after, count, out[:]) })
	if out[0] == 0 {
		return nil, "", err
	}
	live.add(&live.lists, 1)
	l := capi.SwigcptrScheduleList(uintptr(out[0]))
	defer func() {
		capi.Schedule_list_free(l)
		live.add(&live.lists, -1)
	}()
	if failed(err) {
		return nil, "", err
	}
	n := capi.Schedule_list_count(l)
	list := make([]Schedule, 0, n)
	nums := make([]int64, capi.EMQGO_SCHED_NUMS)
	for i := int64(0); i < n; i++ {
		capi.Schedule_numbers(l, i, nums)
		payload := make([]byte, nums[capi.EMQGO_SCHED_PAYLOAD_LEN])
		if len(payload) > 0 {
			capi.Schedule_payload_copy(l, i, payload)
		}
		list = append(list, Schedule{
			Name: capi.Schedule_text(l, i, 0),
			ScheduleSpec: ScheduleSpec{
				Every:        time.Duration(nums[capi.EMQGO_SCHED_EVERY_MS]) * time.Millisecond,
				Cron:         capi.Schedule_text(l, i, 1),
				Zone:         capi.Schedule_text(l, i, 2),
				Lane:         capi.Schedule_text(l, i, 3),
				Payload:      payload,
				MaxAttempts:  uint32(nums[capi.EMQGO_SCHED_MAX_ATTEMPTS]),
				Keep:         time.Duration(nums[capi.EMQGO_SCHED_KEEP_MS]) * time.Millisecond,
				KeepLast:     uint64(nums[capi.EMQGO_SCHED_KEEP_LAST]),
				CostEstimate: uint64(nums[capi.EMQGO_SCHED_COST_ESTIMATE]),
				Start:        msTime(nums[capi.EMQGO_SCHED_START_AT_MS]),
				End:          msTime(nums[capi.EMQGO_SCHED_END_AT_MS]),
				Limit:        uint64(nums[capi.EMQGO_SCHED_LIMIT]),
				Missed:       Missed(nums[capi.EMQGO_SCHED_MISSED]),
				Grace:        time.Duration(nums[capi.EMQGO_SCHED_GRACE_MS]) * time.Millisecond,
				Overlap:      Overlap(nums[capi.EMQGO_SCHED_OVERLAP]),
			},
			Paused:     nums[capi.EMQGO_SCHED_PAUSED] != 0,
			Ended:      capi.Schedule_text(l, i, 4),
			NextAt:     msTime(nums[capi.EMQGO_SCHED_NEXT_AT_MS]),
			LastTick:   msTime(nums[capi.EMQGO_SCHED_LAST_TICK_MS]),
			FiredTick:  msTime(nums[capi.EMQGO_SCHED_FIRED_TICK_MS]),
			FiredAt:    msTime(nums[capi.EMQGO_SCHED_FIRED_AT_MS]),
			FiredJob:   uint64(nums[capi.EMQGO_SCHED_FIRED_JOB]),
			FiredState: JobState(nums[capi.EMQGO_SCHED_FIRED_STATE]),
			Runs:       uint64(nums[capi.EMQGO_SCHED_RUNS]),
			Skips:      uint64(nums[capi.EMQGO_SCHED_SKIPS]),
			CreatedAt:  msTime(nums[capi.EMQGO_SCHED_CREATED_AT_MS]),
			UpdatedAt:  msTime(nums[capi.EMQGO_SCHED_UPDATED_AT_MS]),
		})
	}
	return list, capi.Schedule_list_next(l), err
}

// NextTicks is the next n (1..1000) ticks of schedule name, as the server
// computes them: fewer past its end or limit; a paused one's from a resume
// now.
func (q *Queue) NextTicks(ctx context.Context, name string, n int) ([]time.Time, error) {
	if err := q.checkNames(); err != nil {
		return nil, err
	}
	if hasNUL(name) {
		return nil, invalid("schedule name contains a NUL byte")
	}
	if n < 1 || n > capi.ECHOMQ_SCHEDULE_NEXT_MAX {
		return nil, invalid("n must be 1..1000")
	}
	ms := make([]int64, n)
	var got [1]uint64
	_, err := q.c.do(ctx, func(h capi.Client) int { return capi.Schedule_next(h, q.name, name, ms, got[:]) })
	if failed(err) {
		return nil, err
	}
	out := make([]time.Time, got[0])
	for i := range out {
		out[i] = msTime(ms[i])
	}
	return out, err
}

// TickOf names the schedule and tick that made job id (looked up: the job
// must still exist); "" and a zero time for a job no schedule made. The
// tick's job carries the idempotency key "sched:<name>:<tick ms>".
func (q *Queue) TickOf(ctx context.Context, id uint64) (string, time.Time, error) {
	if err := q.checkNames(); err != nil {
		return "", time.Time{}, err
	}
	var out [1]uint64
	_, err := q.c.do(ctx, func(h capi.Client) int { return capi.Get_job(h, q.name, id, out[:]) })
	if out[0] == 0 {
		return "", time.Time{}, err
	}
	live.add(&live.jobs, 1)
	j := capi.SwigcptrJob(uintptr(out[0]))
	name := capi.Job_schedule(j)
	tick := msTime(capi.Job_tick_ms(j))
	capi.Job_free(j)
	live.add(&live.jobs, -1)
	return name, tick, err
}
