package echomq

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

type email struct {
	To      string `json:"to"`
	Subject string `json:"subject"`
}

// A Mux runs each job by name through its middleware; typed payloads and
// results go through encoding/json; an unknown name or a payload that does
// not decode dies at once, never retried.
func TestMuxDispatchesByName(t *testing.T) {
	c := dial(t)
	q := newQueue(t, c)
	bg := ctxT(t)
	mustOK(t, q.SetRetention(bg, 0, 100))
	var mu sync.Mutex
	var trail []string
	mux := NewMux()
	mux.Use(func(next Handler) Handler {
		return func(ctx context.Context, j *Job) error {
			mu.Lock()
			trail = append(trail, "outer:"+j.Name)
			mu.Unlock()
			return next(ctx, j)
		}
	}, func(next Handler) Handler {
		return func(ctx context.Context, j *Job) error {
			mu.Lock()
			trail = append(trail, "inner:"+j.Name)
			mu.Unlock()
			return next(ctx, j)
		}
	})
	HandleJSON(mux, "email:send", func(_ context.Context, j *Job, e email) error {
		j.SetResultValue(map[string]string{"sent": e.To + "/" + e.Subject})
		return nil
	})
	mux.HandleFunc("ping", func(_ context.Context, j *Job) error {
		j.SetResult([]byte("pong"))
		return nil
	})
	sent := must(EnqueueJSON(bg, q, "email:send", "example.com", email{To: "ada", Subject: "hi"}))(t)
	ping := must(q.Enqueue(bg, "other", nil, WithName("ping")))(t)
	unknown := must(q.Enqueue(bg, "g", []byte("{}"), WithName("nobody"), WithMaxAttempts(5)))(t)
	nameless := must(q.Enqueue(bg, "g", []byte("{}"), WithMaxAttempts(5)))(t)
	garbled := must(q.Enqueue(bg, "g", []byte("not json"), WithName("email:send"), WithMaxAttempts(5)))(t)
	w := &Worker{URL: serverURL, Queue: q.Name(), Concurrency: 1, IdleTimeout: 500 * time.Millisecond,
		Handler: mux.ProcessJob}
	mustOK(t, w.Run(bg))
	done := must(q.Job(bg, sent))(t)
	if v := must(ResultJSON[map[string]string](done))(t); v["sent"] != "ada/hi" {
		t.Fatalf("result %v", v)
	}
	if j := must(q.Job(bg, ping))(t); string(j.Result) != "pong" {
		t.Fatalf("ping result %q", j.Result)
	}
	dead := map[uint64]*Job{}
	for _, j := range must(q.Dead(bg, 0, 10))(t) {
		dead[j.ID] = j
	}
	if j := dead[unknown]; j == nil || j.LastError != `unknown task name "nobody": no handler of this mux runs it` || j.Attempt != 1 {
		t.Fatalf("unknown name: %+v", j)
	}
	if j := dead[nameless]; j == nil || !strings.HasPrefix(j.LastError, "the job has no task name") {
		t.Fatalf("no name: %+v", j)
	}
	if j := dead[garbled]; j == nil || !strings.Contains(j.LastError, "its payload does not decode") || j.Attempt != 1 {
		t.Fatalf("garbled payload: %+v", j)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(trail, "outer:email:send") || trail[0][:6] != "outer:" || trail[1][:6] != "inner:" {
		t.Fatalf("middleware order: %v", trail)
	}
	if len(trail) != 10 { // two layers for each of the five jobs, unknown ones too
		t.Fatalf("middleware saw %d calls: %v", len(trail), trail)
	}
}

func TestMuxRegistrationPanics(t *testing.T) {
	mux := NewMux()
	mux.HandleFunc("a", func(context.Context, *Job) error { return nil })
	for _, f := range []func(){
		func() { mux.HandleFunc("a", func(context.Context, *Job) error { return nil }) },
		func() { mux.Handle("", func(context.Context, *Job) error { return nil }) },
		func() { mux.Handle("b", nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			f()
		}()
	}
	if err := mux.ProcessJob(context.Background(), &Job{Name: "zzz"}); !errors.Is(err, ErrDiscard) {
		t.Fatalf("unknown name: %v", err)
	}
}
