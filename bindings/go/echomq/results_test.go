package echomq

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// records is a slog handler that keeps what the Worker logs.
type records struct {
	mu  sync.Mutex
	got []string // "LEVEL message reason"
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *records) WithGroup(string) slog.Handler            { return r }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	line := rec.Level.String() + " " + rec.Message
	rec.Attrs(func(a slog.Attr) bool {
		if a.Key == "reason" {
			line += ": " + a.Value.String()
		}
		return true
	})
	r.mu.Lock()
	r.got = append(r.got, line)
	r.mu.Unlock()
	return nil
}

// A handler's result is kept: bytes as they are, a value through the
// Serializer (JSON by default). One that cannot be kept completes the job
// all the same (the handler never runs again for it), is logged at Error and
// reported to OnError as ErrResultDropped.
func TestWorkerResults(t *testing.T) {
	c := dial(t)
	q := newQueue(t, c)
	bg := ctxT(t)
	mustOK(t, q.SetRetention(bg, 0, 100))
	ids := map[string]uint64{}
	for _, p := range []string{"bytes", "value", "unencodable", "too big"} {
		ids[p] = must(q.Enqueue(bg, "g", []byte(p), WithMaxAttempts(3)))(t)
	}
	var runs atomic.Int64
	var dropped []string
	var mu sync.Mutex
	log := &records{}
	w := &Worker{
		URL: serverURL, Queue: q.Name(), Concurrency: 1, IdleTimeout: 500 * time.Millisecond, Logger: slog.New(log),
		Handler: func(_ context.Context, j *Job) error {
			runs.Add(1)
			switch string(j.Payload) {
			case "bytes":
				j.SetResult([]byte("raw"))
			case "value":
				j.SetResultValue(map[string]any{"ok": true, "n": 42})
			case "unencodable":
				j.SetResultValue(make(chan int))
			case "too big":
				j.SetResult(make([]byte, 65537))
			}
			return nil
		},
		OnError: func(err error) {
			if !errors.Is(err, ErrResultDropped) {
				t.Errorf("worker: %v", err)
			}
			mu.Lock()
			dropped = append(dropped, err.Error())
			mu.Unlock()
		},
	}
	mustOK(t, w.Run(bg))
	if runs.Load() != 4 || w.Stats().Acked != 4 || w.Stats().Failed != 0 {
		t.Fatalf("runs %d, stats %+v: a result must never fail a job", runs.Load(), w.Stats())
	}
	want := map[string]string{"bytes": "raw", "value": `{"n":42,"ok":true}`, "unencodable": "", "too big": ""}
	for p, id := range ids {
		j := must(q.Job(bg, id))(t)
		if j.State != StateCompleted || string(j.Result) != want[p] {
			t.Errorf("%s: state %v, result %q", p, j.State, j.Result)
		}
		if (want[p] == "") != (j.ResultDropped != "") {
			t.Errorf("%s: result dropped %q", p, j.ResultDropped)
		}
	}
	if len(dropped) != 2 || !strings.Contains(dropped[0], "cannot encode the result: json: unsupported type: chan int") ||
		!strings.Contains(dropped[1], "result of 65537 bytes is over ECHOMQ_RESULT_MAX (65536)") {
		t.Fatalf("OnError heard %q", dropped)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if len(log.got) != 2 || !strings.HasPrefix(log.got[0], "ERROR echomq: result dropped") {
		t.Fatalf("logged %q", log.got)
	}
}

// The hooks and the log follow what the engine says becomes of each failed
// job: retried at Info, dead-lettered (or discarded) at Warn, OnDead only then.
func TestWorkerHooksFollowTheEngine(t *testing.T) {
	c := dial(t)
	q := newQueue(t, c)
	bg := ctxT(t)
	must(q.Enqueue(bg, "a", []byte("flaky"), WithMaxAttempts(2)))(t)
	must(q.Enqueue(bg, "b", []byte("hopeless"), WithMaxAttempts(5)))(t)
	var failed, dead atomic.Int64
	log := &records{}
	w := &Worker{
		URL: serverURL, Queue: q.Name(), Concurrency: 1, IdleTimeout: 500 * time.Millisecond, RetryIn: RetryNow,
		Logger: slog.New(log),
		Handler: func(_ context.Context, j *Job) error {
			if string(j.Payload) == "hopeless" {
				return Discard(errors.New("cannot parse"))
			}
			return errors.New("downstream said no")
		},
		OnFailed: func(*Job, error) { failed.Add(1) },
		OnDead:   func(*Job, error) { dead.Add(1) },
	}
	mustOK(t, w.Run(bg))
	if failed.Load() != 3 || dead.Load() != 2 {
		t.Fatalf("OnFailed %d, OnDead %d; want 3 and 2", failed.Load(), dead.Load())
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	want := map[string]int{
		"INFO echomq: job failed, will be retried: downstream said no": 1,
		"WARN echomq: job failed, dead-lettered: downstream said no":   1,
		"WARN echomq: job discarded, dead-lettered: cannot parse":      1,
	}
	for _, line := range log.got {
		want[line]--
	}
	for line, n := range want {
		if n != 0 {
			t.Errorf("%q logged %d times too few (got %q)", line, n, log.got)
		}
	}
}
