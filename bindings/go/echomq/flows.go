package echomq

import (
	"context"
	"sort"
	"strconv"

	"github.com/echomq/echomq/bindings/go/internal/capi"
)

// Flows: jobs that wait for other jobs of the same queue (docs/operations.md
// "Flows"). A job with children (a parent) waits until every child has
// finished, then joins its lane and takes its turn like any job; it reads
// its children's outcomes with Queue.FlowInfo. Build a flow by name with
// NewFlow, or with the patterns Chain, Group and Chord; enqueue it whole,
// in one call, with Queue.EnqueueFlow.

// StateWaiting: a flow's parent waiting for its children (a JobState).
const StateWaiting JobState = 6

// OnFail is what a parent does when a child dies.
type OnFail int

const (
	// FailParent: the parent dies too, its reason naming the child.
	FailParent OnFail = 0
	// IgnoreFailure: the parent runs; the child is left out of its children.
	IgnoreFailure OnFail = 1
	// ContinueOnFailure: the parent runs, the death among its children's outcomes.
	ContinueOnFailure OnFail = 2
)

// FlowMax is the most jobs one flow holds.
const FlowMax = 1000

// Step is one job of a flow not yet named: its lane and payload, what its
// parent does if it dies, and its queue ("" = the flow's; any other is
// refused: a flow lives in one queue).
type Step struct {
	Lane    string
	Payload []byte
	OnFail  OnFail
	Queue   string
}

type flowJob struct {
	name, parent string
	step         Step
}

// Flow is a flow being built: jobs named by the caller, each with the name
// of the job that waits for it. Not safe for concurrent use.
type Flow struct {
	jobs []flowJob
	root string // the job whose result is the flow's (Chain, Chord), or ""
}

// NewFlow returns an empty flow.
func NewFlow() *Flow { return &Flow{} }

// Add adds job name (unique in the flow) as step s; parent names the job
// that waits for it ("" = none), added before or after. It returns f.
func (f *Flow) Add(name string, s Step, parent string) *Flow {
	f.jobs = append(f.jobs, flowJob{name: name, parent: parent, step: s})
	return f
}

// Len is the jobs in the flow.
func (f *Flow) Len() int { return len(f.jobs) }

// Root is the name of the job whose result is the flow's: a chain's last
// step, a chord's body ("" for a group or a flow built by hand).
func (f *Flow) Root() string { return f.root }

// Chain runs the steps one after the other: each waits for the one before
// (its only child) and reads its result from FlowInfo.Results()[0]. A step
// that dies fails the steps after it (unless its OnFail says otherwise).
// The steps are named "step0", "step1", ...
func Chain(steps ...Step) *Flow {
	f := NewFlow()
	for i, s := range steps {
		parent := ""
		if i+1 < len(steps) {
			parent = "step" + strconv.Itoa(i+1)
		}
		f.Add("step"+strconv.Itoa(i), s, parent)
	}
	if len(steps) > 0 {
		f.root = "step" + strconv.Itoa(len(steps)-1)
	}
	return f
}

// Group runs the steps in parallel, each in its lane (named "job0",
// "job1", ...); wait for them with Queue.Wait (with a retention set).
func Group(steps ...Step) *Flow {
	f := NewFlow()
	for i, s := range steps {
		f.Add("job"+strconv.Itoa(i), s, "")
	}
	return f
}

// Chord runs the group's steps in parallel, then body once, after all of
// them finished, with every result (FlowInfo.Results(), in the group's
// order). The body is named "body", the group's jobs "job0", ...
func Chord(group []Step, body Step) *Flow {
	f := NewFlow().Add("body", body, "")
	for i, s := range group {
		f.Add("job"+strconv.Itoa(i), s, "body")
	}
	f.root = "body"
	return f
}

// EnqueueFlow enqueues the flow whole in one call, all or nothing, and
// returns the ids by name. maxAttempts 0 = the queue's default. A cycle, a
// parent not in the flow, a job of another queue or a name twice is
// ErrInvalid, more than FlowMax jobs ErrTooLarge; nothing is written then.
func (q *Queue) EnqueueFlow(ctx context.Context, f *Flow, maxAttempts uint32) (map[string]uint64, error) {
	if err := q.checkNames(); err != nil {
		return nil, err
	}
	if f == nil || len(f.jobs) == 0 {
		return nil, invalid("flow is empty")
	}
	if len(f.jobs) > FlowMax {
		return nil, &Error{Code: CodeTooLarge, Msg: "flow holds " + strconv.Itoa(len(f.jobs)) +
			" jobs, over the bound of " + strconv.Itoa(FlowMax) + " a flow (nothing was enqueued)"}
	}
	h := capi.Flow_create()
	if h == nil || h.Swigcptr() == 0 {
		return nil, &Error{Code: CodeNoMem, Msg: "cannot allocate a flow"}
	}
	defer capi.Flow_free(h)
	for _, j := range f.jobs {
		if hasNUL(j.name) || hasNUL(j.parent) || hasNUL(j.step.Queue) {
			return nil, invalid("flow names hold no NUL")
		}
		if rc := capi.Flow_add(h, j.name, j.parent, int(j.step.OnFail), j.step.Queue, j.step.Lane, j.step.Payload); rc != capi.ECHOMQ_OK {
			return nil, &Error{Code: Code(rc), Msg: "flow job '" + j.name + "': " + capi.Strerror(rc)}
		}
	}
	if _, err := q.c.do(ctx, func(c capi.Client) int { return capi.Enqueue_flow(c, q.name, h, uint(maxAttempts)) }); err != nil {
		return nil, err
	}
	ids := make(map[string]uint64, len(f.jobs))
	for i, j := range f.jobs {
		ids[j.name] = capi.Flow_id(h, int64(i))
	}
	return ids, nil
}

// FlowChild is a child as its parent sees it.
type FlowChild struct {
	ID         uint64
	State      JobState
	Attempts   uint64
	FinishedAt int64 // server ms, 0 = not finished
	Error      string
	Result     []byte
}

// FlowInfo is a job's links: its state, the parent that waits for it (0 =
// none) and what that parent does if it dies, its children not finished
// and every child (by id).
type FlowInfo struct {
	State    JobState
	Parent   uint64
	OnFail   OnFail
	Waiting  int
	Children []FlowChild
}

// Results are the results of the completed children, in id order.
func (fi FlowInfo) Results() [][]byte {
	var out [][]byte
	for _, c := range fi.Children {
		if c.State == StateCompleted {
			out = append(out, c.Result)
		}
	}
	return out
}

// FlowInfo reads job id's links (ErrNotFound: no such job). A parent reads
// its children's results with it: they are kept for it until it settles.
func (q *Queue) FlowInfo(ctx context.Context, id uint64) (FlowInfo, error) {
	if err := q.checkNames(); err != nil {
		return FlowInfo{}, err
	}
	var out [1]uint64
	_, err := q.c.do(ctx, func(c capi.Client) int { return capi.Flow_info(c, q.name, id, out[:]) })
	if out[0] == 0 {
		return FlowInfo{}, err
	}
	h := capi.SwigcptrFlowInfo(uintptr(out[0]))
	defer capi.Flow_info_free(h)
	if err != nil {
		return FlowInfo{}, err
	}
	fi := FlowInfo{State: JobState(capi.Flow_info_state(h)), Parent: capi.Flow_info_parent(h),
		OnFail: OnFail(capi.Flow_info_on_fail(h)), Waiting: int(capi.Flow_info_waiting(h))}
	n := int(capi.Flow_info_count(h))
	bytesOf := func(i int64, what int) []byte {
		b := make([]byte, capi.Flow_child_bytes(h, i, what, nil))
		if len(b) > 0 {
			capi.Flow_child_bytes(h, i, what, b)
		}
		return b
	}
	for i := int64(0); i < int64(n); i++ {
		fi.Children = append(fi.Children, FlowChild{ID: capi.Flow_info_child(h, i),
			State: JobState(capi.Flow_info_child_state(h, i)), Attempts: capi.Flow_info_child_attempts(h, i),
			FinishedAt: capi.Flow_info_child_finished_at(h, i), Error: string(bytesOf(i, 0)), Result: bytesOf(i, 1)})
	}
	sort.Slice(fi.Children, func(a, b int) bool { return fi.Children[a].ID < fi.Children[b].ID })
	return fi, nil
}

// DeleteFlow deletes the unfinished flow job id belongs to, whole, and
// returns the jobs deleted (Delete refuses such a job with ErrFlow). It
// returns ErrLeased when a job of the flow is leased now (nothing changed).
func (q *Queue) DeleteFlow(ctx context.Context, id uint64) (uint64, error) {
	if err := q.checkNames(); err != nil {
		return 0, err
	}
	var out [1]uint64
	_, err := q.c.do(ctx, func(c capi.Client) int { return capi.Delete_flow(c, q.name, id, out[:]) })
	return out[0], err
}
