package echomq

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// runWorker drains q with handler until it idles.
func runWorker(t *testing.T, q *Queue, concurrency int, handler Handler) {
	t.Helper()
	w := &Worker{URL: serverURL, Queue: q.Name(), Concurrency: concurrency, IdleTimeout: 500 * time.Millisecond,
		Handler: handler}
	if err := w.Run(ctxT(t)); err != nil {
		t.Fatal(err)
	}
}

func TestFlowChainEachStepSeesThePreviousResult(t *testing.T) {
	ctx := ctxT(t)
	q := newQueue(t, dial(t))
	f := Chain(Step{Lane: "a", Payload: []byte("1")}, Step{Lane: "b", Payload: []byte("10")},
		Step{Lane: "a", Payload: []byte("100")})
	ids := must(q.EnqueueFlow(ctx, f, 0))(t)
	if j := must(q.Job(ctx, ids[f.Root()]))(t); j.State != StateWaiting {
		t.Fatalf("the last step is %v, want waiting", j.State)
	}
	var mu sync.Mutex
	var seen []string
	runWorker(t, q, 3, func(ctx context.Context, j *Job) error {
		fi, err := q.FlowInfo(ctx, j.ID)
		if err != nil {
			return err
		}
		n, _ := strconv.Atoi(string(j.Payload))
		if r := fi.Results(); len(r) == 1 {
			prev, _ := strconv.Atoi(string(r[0]))
			n += prev
		}
		mu.Lock()
		seen = append(seen, string(j.Payload))
		mu.Unlock()
		j.SetResult([]byte(strconv.Itoa(n)))
		return nil
	})
	if strings.Join(seen, ",") != "1,10,100" {
		t.Fatalf("order %v", seen)
	}
}

func TestFlowGroupAndChord(t *testing.T) {
	ctx := ctxT(t)
	q := newQueue(t, dial(t))
	if err := q.SetRetention(ctx, time.Minute, 0); err != nil {
		t.Fatal(err)
	}
	var group []Step
	for i := 0; i < 6; i++ {
		group = append(group, Step{Lane: "t" + strconv.Itoa(i%3), Payload: []byte(strconv.Itoa(i))})
	}
	g := must(q.EnqueueFlow(ctx, Group(group...), 0))(t)
	c := Chord(group, Step{Lane: "sum"})
	ids := must(q.EnqueueFlow(ctx, c, 0))(t)
	var mu sync.Mutex
	var sums []string
	runWorker(t, q, 4, func(ctx context.Context, j *Job) error {
		if j.Group != "sum" {
			j.SetResult(j.Payload)
			return nil
		}
		fi, err := q.FlowInfo(ctx, j.ID)
		if err != nil {
			return err
		}
		var parts []string
		for _, r := range fi.Results() {
			parts = append(parts, string(r))
		}
		mu.Lock()
		sums = append(sums, strings.Join(parts, "+"))
		mu.Unlock()
		return nil
	})
	if len(sums) != 1 || sums[0] != "0+1+2+3+4+5" {
		t.Fatalf("chord body ran with %v", sums)
	}
	for i := 0; i < 6; i++ {
		j := must(q.Wait(ctx, g["job"+strconv.Itoa(i)], time.Second))(t)
		if j.State != StateCompleted || string(j.Result) != strconv.Itoa(i) {
			t.Fatalf("group job %d: %+v", i, j)
		}
	}
	if j := must(q.Job(ctx, ids["body"]))(t); j.State != StateCompleted {
		t.Fatalf("chord body: %v", j.State)
	}
}

func TestFlowFailurePolicies(t *testing.T) {
	ctx := ctxT(t)
	q := newQueue(t, dial(t))
	f := NewFlow().
		Add("cb", Step{Lane: "cb"}, "").
		Add("bad", Step{Lane: "x", Payload: []byte("bad"), OnFail: ContinueOnFailure}, "cb").
		Add("gone", Step{Lane: "x", Payload: []byte("bad"), OnFail: IgnoreFailure}, "cb").
		Add("good", Step{Lane: "y", Payload: []byte("good")}, "cb")
	ids := must(q.EnqueueFlow(ctx, f, 1))(t)
	var got FlowInfo
	runWorker(t, q, 2, func(ctx context.Context, j *Job) error {
		if string(j.Payload) == "bad" {
			return Discard(errors.New("no"))
		}
		if j.Group == "cb" {
			got, _ = q.FlowInfo(ctx, j.ID)
		}
		return nil
	})
	if len(got.Children) != 2 || got.Children[1].ID != ids["good"] || got.Children[0].State != StateDead ||
		!strings.Contains(got.Children[0].Error, "no") {
		t.Fatalf("the body saw %+v", got)
	}
	// FailParent (the default): a dead step kills the chain after it.
	c := Chain(Step{Lane: "a", Payload: []byte("bad")}, Step{Lane: "a"})
	cids := must(q.EnqueueFlow(ctx, c, 1))(t)
	runWorker(t, q, 1, func(ctx context.Context, j *Job) error {
		if string(j.Payload) == "bad" {
			return Discard(errors.New("no"))
		}
		t.Errorf("the step after a dead one ran")
		return nil
	})
	last := must(q.Job(ctx, cids[c.Root()]))(t)
	if last.State != StateDead || !strings.HasPrefix(last.LastError, "child "+strconv.FormatUint(cids["step0"], 10)+" failed") {
		t.Fatalf("last step: %v %q", last.State, last.LastError)
	}
}

func TestFlowBadInputWritesNothing(t *testing.T) {
	ctx := ctxT(t)
	q := newQueue(t, dial(t))
	big := NewFlow().Add("j0", Step{Lane: "g"}, "")
	for i := 1; i <= FlowMax; i++ {
		big.Add("j"+strconv.Itoa(i), Step{Lane: "g"}, "j0")
	}
	cases := []struct {
		name  string
		flow  *Flow
		want  error
		words string
	}{
		{"cycle", NewFlow().Add("a", Step{Lane: "g"}, "b").Add("b", Step{Lane: "g"}, "a"), ErrInvalid, "cycle"},
		{"unknown id", NewFlow().Add("a", Step{Lane: "g"}, "nope"), ErrInvalid, "not in the flow"},
		{"another queue", NewFlow().Add("a", Step{Lane: "g"}, "").Add("b", Step{Lane: "g", Queue: "other"}, "a"),
			ErrInvalid, "one queue"},
		{"over the bound", big, ErrTooLarge, "bound"},
	}
	for _, k := range cases {
		_, err := q.EnqueueFlow(ctx, k.flow, 0)
		if !errors.Is(err, k.want) || !strings.Contains(err.Error(), k.words) {
			t.Fatalf("%s: %v", k.name, err)
		}
	}
	if keys := dialRaw(t).do(t, "KEYS", "emq:{"+q.Name()+"}:*").([]any); len(keys) != 0 {
		t.Fatalf("written: %v", keys)
	}
	ids := must(q.EnqueueFlow(ctx, Chord([]Step{{Lane: "a"}, {Lane: "b"}}, Step{Lane: "c"}), 0))(t)
	if err := q.Delete(ctx, ids["job0"]); !errors.Is(err, ErrFlow) {
		t.Fatalf("delete of a child: %v", err)
	}
	if n := must(q.DeleteFlow(ctx, ids["job1"]))(t); n != 3 {
		t.Fatalf("deleted %d", n)
	}
}
