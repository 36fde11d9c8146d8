package echomqotel_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/echomq/echomq/bindings/go/echomq"
	echomqotel "github.com/echomq/echomq/bindings/go/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// The tests run against a real valkey-server started with the repository's
// tests/valkey-server.sh.
var serverURL string

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	script, _ := filepath.Abs("../../../tests/valkey-server.sh")
	dir, err := os.MkdirTemp("", "emq-otel-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer os.RemoveAll(dir)
	dir = filepath.Join(dir, "server")
	out, err := exec.Command("bash", script, "start", dir).Output()
	if err != nil {
		fmt.Fprintf(os.Stderr, "cannot start valkey-server: %v\n", err)
		return 2
	}
	defer exec.Command("bash", script, "stop", dir).Run()
	serverURL = strings.TrimSpace(string(out))
	return m.Run()
}

func setup(t *testing.T) (*tracetest.InMemoryExporter, *echomqotel.Tracing, trace.Tracer, *echomq.Queue) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	c, err := echomq.Dial(context.Background(), serverURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	name := fmt.Sprintf("otel-%s-%d", t.Name(), time.Now().UnixNano())
	return exp, echomqotel.New(echomqotel.WithTracerProvider(tp)), tp.Tracer("test"), c.Queue(name)
}

func attr(s tracetest.SpanStub, key string) attribute.Value {
	for _, kv := range s.Attributes {
		if string(kv.Key) == key {
			return kv.Value
		}
	}
	return attribute.Value{}
}

func find(t *testing.T, spans tracetest.SpanStubs, kind trace.SpanKind, id uint64) tracetest.SpanStub {
	t.Helper()
	for _, s := range spans {
		if s.SpanKind == kind && attr(s, "messaging.message.id").AsString() == strconv.FormatUint(id, 10) {
			return s
		}
	}
	t.Fatalf("no %v span for job %d among %d", kind, id, len(spans))
	return tracetest.SpanStub{}
}

type order struct{ N int }

// One trace: a request's span, the send of "first", its processing through
// a Mux, the send of "second" from that handler, and second's processing,
// which fails: its error is recorded on its span.
func TestOneTraceThroughTheWorkerIntoTheJobItsHandlerEnqueues(t *testing.T) {
	exp, tr, tracer, q := setup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var secondID atomic.Uint64
	mux := echomq.NewMux()
	mux.Use(tr.Middleware)
	echomq.HandleJSON(mux, "first", func(ctx context.Context, j *echomq.Job, o order) error {
		id, err := echomqotel.EnqueueJSON(ctx, tr, q, "second", "tenant-b", order{o.N * 10},
			echomq.WithMaxAttempts(1))
		secondID.Store(id)
		return err
	})
	mux.HandleFunc("second", func(ctx context.Context, j *echomq.Job) error { return errors.New("out of stock") })

	rctx, root := tracer.Start(ctx, "request")
	firstID, err := echomqotel.EnqueueJSON(rctx, tr, q, "first", "tenant-a", order{4},
		echomq.WithHeaders(map[string]string{"tenant": "a"}))
	root.End()
	if err != nil {
		t.Fatal(err)
	}
	if j, err := q.Job(ctx, firstID); err != nil || j.Headers["traceparent"] == "" || j.Headers["tenant"] != "a" {
		t.Fatalf("headers %v (%v)", j.Headers, err)
	}
	w := &echomq.Worker{URL: serverURL, Queue: q.Name(), Handler: mux.ProcessJob, Concurrency: 2,
		IdleTimeout: 500 * time.Millisecond}
	if err := w.Run(ctx); err != nil {
		t.Fatal(err)
	}
	spans := exp.GetSpans()
	send1 := find(t, spans, trace.SpanKindProducer, firstID)
	proc1 := find(t, spans, trace.SpanKindConsumer, firstID)
	send2 := find(t, spans, trace.SpanKindProducer, secondID.Load())
	proc2 := find(t, spans, trace.SpanKindConsumer, secondID.Load())
	rootID := root.SpanContext()
	for _, s := range []tracetest.SpanStub{send1, proc1, send2, proc2} {
		if s.SpanContext.TraceID() != rootID.TraceID() {
			t.Fatalf("%s: trace %s, want %s", s.Name, s.SpanContext.TraceID(), rootID.TraceID())
		}
	}
	for i, link := range [][2]trace.SpanContext{{send1.Parent, rootID}, {proc1.Parent, send1.SpanContext},
		{send2.Parent, proc1.SpanContext}, {proc2.Parent, send2.SpanContext}} {
		if link[0].SpanID() != link[1].SpanID() {
			t.Fatalf("link %d: parent %s, want %s", i, link[0].SpanID(), link[1].SpanID())
		}
	}
	if send1.Name != "send "+q.Name() || proc1.Name != "process "+q.Name() {
		t.Fatalf("names %q %q", send1.Name, proc1.Name)
	}
	for key, want := range map[string]string{"messaging.system": "echomq", "messaging.destination.name": q.Name(),
		"messaging.operation.type": "process", "echomq.job.lane": "tenant-a", "echomq.job.name": "first"} {
		if got := attr(proc1, key).AsString(); got != want {
			t.Fatalf("%s = %q, want %q", key, got, want)
		}
	}
	if attr(proc1, "echomq.job.attempt").AsInt64() != 1 || attr(send2, "echomq.job.lane").AsString() != "tenant-b" {
		t.Fatalf("attempt %v, lane %v", attr(proc1, "echomq.job.attempt"), attr(send2, "echomq.job.lane"))
	}
	if proc1.Status.Code == codes.Error || proc2.Status.Code != codes.Error || len(proc2.Events) == 0 ||
		!strings.Contains(proc2.Status.Description, "out of stock") {
		t.Fatalf("statuses %v / %v, events %v", proc1.Status, proc2.Status, proc2.Events)
	}
}

// A header the caller gives of the trace's key wins; with no room left for
// the context the job is enqueued without it; a plain Worker's Handler is
// wrapped as well as a Mux.
func TestGivenHeadersWinAndAFullSetIsLeftAsItIs(t *testing.T) {
	exp, tr, _, q := setup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	mine := "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	a, err := tr.Enqueue(ctx, q, "l", nil, echomq.WithHeaders(map[string]string{"traceparent": mine}))
	if err != nil {
		t.Fatal(err)
	}
	full := map[string]string{}
	for i := 0; i < 32; i++ {
		full["h"+strconv.Itoa(i)] = "v"
	}
	b, err := tr.Enqueue(ctx, q, "l", nil, echomq.WithHeaders(full))
	if err != nil {
		t.Fatal(err)
	}
	if j, _ := q.Job(ctx, a); j.Headers["traceparent"] != mine {
		t.Fatalf("given traceparent replaced: %v", j.Headers)
	}
	if j, _ := q.Job(ctx, b); len(j.Headers) != 32 || j.Headers["traceparent"] != "" {
		t.Fatalf("full set changed: %v", j.Headers)
	}
	var seen atomic.Int32
	w := &echomq.Worker{URL: serverURL, Queue: q.Name(), IdleTimeout: 300 * time.Millisecond,
		Handler: tr.Middleware(func(ctx context.Context, j *echomq.Job) error {
			if trace.SpanFromContext(ctx).SpanContext().IsValid() {
				seen.Add(1)
			}
			return nil
		})}
	if err := w.Run(ctx); err != nil {
		t.Fatal(err)
	}
	spans := exp.GetSpans()
	if seen.Load() != 2 || len(spans) != 4 {
		t.Fatalf("handlers in a span: %d; spans %d", seen.Load(), len(spans))
	}
	if p := find(t, spans, trace.SpanKindConsumer, a); p.Parent.TraceID().String() != "0af7651916cd43dd8448eb211c80319c" {
		t.Fatalf("the given context is the parent: %v", p.Parent)
	}
}
