// Package echomqotel traces EchoMQ jobs with OpenTelemetry: the W3C trace
// context goes into a job's headers at enqueue and comes back out when the
// job is processed, so one trace runs from the producer through the worker
// into the jobs its handler enqueues.
//
// It is a module of its own (github.com/echomq/echomq/bindings/go/otel) so
// that the core package depends on nothing but the C library.
//
//	tr := echomqotel.New()                           // the global TracerProvider
//	id, err := tr.Enqueue(ctx, q, "tenant-a", body)  // a PRODUCER span "send <queue>"
//	mux.Use(tr.Middleware)                           // a CONSUMER span "process <queue>"
//
// Spans follow the messaging semantic conventions: messaging.system =
// "echomq", messaging.destination.name = the queue, messaging.operation.name
// and .type ("send", "process"), messaging.message.id = the job id, and
// EchoMQ's echomq.job.lane, echomq.job.name and echomq.job.attempt. A
// handler's error is recorded on its span, which ends with status Error.
package echomqotel

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/echomq/echomq/bindings/go/echomq"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of the spans.
const ScopeName = "github.com/echomq/echomq/bindings/go/otel"

// System is the value of messaging.system.
const System = "echomq"

// Tracing makes the spans of enqueues and handlers. Safe for concurrent use.
type Tracing struct {
	tracer trace.Tracer
	prop   propagation.TextMapPropagator
}

// Option configures New.
type Option func(*options)

type options struct {
	tp   trace.TracerProvider
	prop propagation.TextMapPropagator
}

// WithTracerProvider takes spans from tp (default: otel.GetTracerProvider()).
func WithTracerProvider(tp trace.TracerProvider) Option { return func(o *options) { o.tp = tp } }

// WithPropagator carries the context with p (default: W3C Trace Context,
// propagation.TraceContext; otel.GetTextMapPropagator() for the global one).
func WithPropagator(p propagation.TextMapPropagator) Option { return func(o *options) { o.prop = p } }

// New returns a Tracing.
func New(opts ...Option) *Tracing {
	o := options{prop: propagation.TraceContext{}}
	for _, f := range opts {
		f(&o)
	}
	if o.tp == nil {
		o.tp = otel.GetTracerProvider()
	}
	return &Tracing{tracer: o.tp.Tracer(ScopeName), prop: o.prop}
}

// Middleware runs next inside a CONSUMER span whose parent is the context
// the job carries (none: the ctx's), and gives next a ctx holding that
// span: an echomq.Middleware for Mux.Use, or to wrap a Worker's Handler.
func (t *Tracing) Middleware(next echomq.Handler) echomq.Handler {
	return func(ctx context.Context, job *echomq.Job) error {
		queue := ""
		if q := job.Queue(); q != nil {
			queue = q.Name()
		}
		if len(job.Headers) > 0 {
			ctx = t.prop.Extract(ctx, propagation.MapCarrier(job.Headers))
		}
		attrs := []attribute.KeyValue{
			attribute.String("messaging.system", System),
			attribute.String("messaging.destination.name", queue),
			attribute.String("messaging.operation.name", "process"),
			attribute.String("messaging.operation.type", "process"),
			attribute.String("messaging.message.id", strconv.FormatUint(job.ID, 10)),
			attribute.String("echomq.job.lane", job.Group),
			attribute.Int("echomq.job.attempt", int(job.Attempt)),
		}
		if job.Name != "" {
			attrs = append(attrs, attribute.String("echomq.job.name", job.Name))
		}
		ctx, span := t.tracer.Start(ctx, "process "+queue, trace.WithSpanKind(trace.SpanKindConsumer),
			trace.WithAttributes(attrs...))
		defer span.End()
		err := next(ctx, job)
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, err.Error())
		}
		return err
	}
}

// Enqueue is q.Enqueue inside a PRODUCER span, the span's context added to
// the job's headers (echomq.WithHeader: a header the caller gives of the
// same key wins). Were the headers then over their limits, the job is
// enqueued without the context (the refusal wrote nothing): the trace does
// not cross that job.
func (t *Tracing) Enqueue(ctx context.Context, q *echomq.Queue, lane string, payload []byte,
	opts ...echomq.EnqueueOption) (uint64, error) {
	return t.enqueue(ctx, q, "", lane, payload, opts)
}

// EnqueueJSON is echomq.EnqueueJSON (a job named name, its payload v in
// JSON) inside a PRODUCER span, as Enqueue.
func EnqueueJSON[T any](ctx context.Context, t *Tracing, q *echomq.Queue, name, lane string, v T,
	opts ...echomq.EnqueueOption) (uint64, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return 0, &echomq.Error{Code: echomq.CodeInvalid, Msg: "EnqueueJSON: the payload does not encode: " + err.Error()}
	}
	return t.enqueue(ctx, q, name, lane, b, append(opts[:len(opts):len(opts)], echomq.WithName(name)))
}

func (t *Tracing) enqueue(ctx context.Context, q *echomq.Queue, name, lane string, payload []byte,
	opts []echomq.EnqueueOption) (uint64, error) {
	attrs := []attribute.KeyValue{
		attribute.String("messaging.system", System),
		attribute.String("messaging.destination.name", q.Name()),
		attribute.String("messaging.operation.name", "send"),
		attribute.String("messaging.operation.type", "send"),
		attribute.String("echomq.job.lane", lane),
	}
	if name != "" {
		attrs = append(attrs, attribute.String("echomq.job.name", name))
	}
	ctx, span := t.tracer.Start(ctx, "send "+q.Name(), trace.WithSpanKind(trace.SpanKindProducer),
		trace.WithAttributes(attrs...))
	defer span.End()
	carrier := propagation.MapCarrier{}
	t.prop.Inject(ctx, carrier)
	traced := opts[:len(opts):len(opts)] // never the caller's backing array
	for k, v := range carrier {
		traced = append(traced, echomq.WithHeader(k, v))
	}
	id, err := q.Enqueue(ctx, lane, payload, traced...)
	if len(carrier) > 0 && (errors.Is(err, echomq.ErrInvalid) || errors.Is(err, echomq.ErrTooLarge)) {
		id, err = q.Enqueue(ctx, lane, payload, opts...) // refused before any write: no room for the context
	}
	if err == nil || errors.Is(err, echomq.ErrDuplicate) {
		span.SetAttributes(attribute.String("messaging.message.id", strconv.FormatUint(id, 10)))
	}
	if err != nil && !errors.Is(err, echomq.ErrDuplicate) {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	return id, err
}
