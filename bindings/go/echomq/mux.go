package echomq

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
)

// Mux runs each job by its name (Job.Name, set with WithName at enqueue),
// in the manner of net/http's ServeMux and asynq's: register a Handler per
// name, wrap them all with middleware, and give the Mux's ProcessJob to a
// Worker as its Handler. A job whose name has no handler is dead-lettered at
// once (Discard) with the reason, never retried. Its methods are safe for
// concurrent use; registering while a Worker runs is allowed.
//
//	mux := echomq.NewMux()
//	mux.Use(logging)
//	echomq.HandleJSON(mux, "email:send", func(ctx context.Context, j *echomq.Job, e Email) error { ... })
//	w := &echomq.Worker{URL: url, Queue: "email", Handler: mux.ProcessJob}
type Mux struct {
	mu       sync.RWMutex
	handlers map[string]Handler
	mw       []Middleware
}

// Middleware wraps a Handler (logging, tracing, metrics, recovery), as
// func(http.Handler) http.Handler does for net/http.
type Middleware func(Handler) Handler

// NewMux returns an empty Mux.
func NewMux() *Mux { return &Mux{handlers: map[string]Handler{}} }

// Handle registers h for jobs named name. It panics on an empty name, a nil
// handler or a name registered already (a programming error, as in
// net/http).
func (m *Mux) Handle(name string, h Handler) {
	if name == "" || h == nil {
		panic("echomq: Mux.Handle needs a name and a handler")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, dup := m.handlers[name]; dup {
		panic("echomq: Mux.Handle: a handler for " + name + " is registered already")
	}
	m.handlers[name] = h
}

// HandleFunc registers fn for jobs named name (as Handle).
func (m *Mux) HandleFunc(name string, fn func(ctx context.Context, job *Job) error) {
	m.Handle(name, Handler(fn))
}

// Use appends middleware; the first given is the outermost. It applies to
// every handler, those registered before and after.
func (m *Mux) Use(mw ...Middleware) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.mw = append(m.mw, mw...)
}

// Names lists the names registered, in no particular order.
func (m *Mux) Names() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]string, 0, len(m.handlers))
	for n := range m.handlers {
		out = append(out, n)
	}
	return out
}

// ProcessJob runs the job's handler through the middleware: a Handler for
// a Worker. A job whose name has no handler fails with a Discard error
// (dead now, no retry), after the middleware saw it.
func (m *Mux) ProcessJob(ctx context.Context, job *Job) error {
	m.mu.RLock()
	h, ok := m.handlers[job.Name]
	mw := m.mw
	m.mu.RUnlock()
	if !ok {
		h = unknownName
	}
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	return h(ctx, job)
}

// unknownName is the handler of a name nothing handles.
func unknownName(_ context.Context, job *Job) error {
	if job.Name == "" {
		return Discard(fmt.Errorf("the job has no task name: no handler of this mux runs it"))
	}
	return Discard(fmt.Errorf("unknown task name %q: no handler of this mux runs it", job.Name))
}

// HandleJSON registers fn for jobs named name whose payload is a T in JSON
// (encoding/json). A payload that does not decode dead-letters its job
// (Discard) with the decoding error: it can never succeed.
func HandleJSON[T any](m *Mux, name string, fn func(ctx context.Context, job *Job, payload T) error) {
	m.Handle(name, func(ctx context.Context, job *Job) error {
		v, err := PayloadJSON[T](job)
		if err != nil {
			return Discard(err)
		}
		return fn(ctx, job, v)
	})
}

// PayloadJSON decodes a job's payload, JSON, into a T.
func PayloadJSON[T any](job *Job) (T, error) {
	var v T
	if err := json.Unmarshal(job.Payload, &v); err != nil {
		return v, fmt.Errorf("task %s: its payload does not decode: %w", job.Name, err)
	}
	return v, nil
}

// ResultJSON decodes a completed job's result (as Queue.Wait or Queue.Job
// return it), JSON, into a T.
func ResultJSON[T any](job *Job) (T, error) {
	var v T
	if err := json.Unmarshal(job.Result, &v); err != nil {
		return v, fmt.Errorf("task %s (job %d): its result does not decode: %w", job.Name, job.ID, err)
	}
	return v, nil
}

// EnqueueJSON enqueues a job named name on lane with payload v in JSON
// (encoding/json); opts as Enqueue's (a later WithName is ignored: the name
// is the task's).
func EnqueueJSON[T any](ctx context.Context, q *Queue, name, lane string, v T, opts ...EnqueueOption) (uint64, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return 0, invalid("EnqueueJSON: the payload does not encode: " + err.Error())
	}
	return q.Enqueue(ctx, lane, b, append(opts, WithName(name))...)
}
