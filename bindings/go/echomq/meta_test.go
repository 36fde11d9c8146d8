package echomq

import (
	"errors"
	"maps"
	"strings"
	"testing"
	"time"
)

// A job's name and headers go with it through a claim, a retry, the dead
// letters and a lookup; bad ones are refused before anything is written.
func TestJobNameAndHeaders(t *testing.T) {
	c := dial(t)
	q := newQueue(t, c)
	bg := ctxT(t)
	h := map[string]string{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "tenant": "acme"}
	id := must(q.Enqueue(bg, "a", []byte("x"), WithName("email:send"), WithHeaders(h), WithMaxAttempts(1)))(t)
	plain := must(q.Enqueue(bg, "b", []byte("y")))(t)
	if j := must(q.Job(bg, id))(t); j.Name != "email:send" || !maps.Equal(j.Headers, h) {
		t.Fatalf("lookup: name %q headers %v", j.Name, j.Headers)
	}
	j := must(q.Claim(bg, time.Minute))(t)
	if j.ID != id || j.Name != "email:send" || !maps.Equal(j.Headers, h) {
		t.Fatalf("claim: %+v", j)
	}
	must(j.Fail(bg, "no", 0))(t)
	dead := must(q.Dead(bg, 0, 10))(t)
	if len(dead) != 1 || dead[0].Name != "email:send" || !maps.Equal(dead[0].Headers, h) {
		t.Fatalf("dead: %+v", dead)
	}
	if p := must(q.Job(bg, plain))(t); p.Name != "" || p.Headers != nil {
		t.Fatalf("a plain job: name %q headers %v", p.Name, p.Headers)
	}
	ids := must(q.EnqueueBatch(bg, []BatchJob{{Group: "a", Payload: []byte("1")}, {Group: "c", Payload: []byte("2")}},
		WithName("report")))(t)
	for _, i := range ids {
		if j := must(q.Job(bg, i))(t); j.Name != "report" {
			t.Fatalf("batch job %d: name %q", i, j.Name)
		}
	}
	for _, bad := range []EnqueueOption{
		WithName(strings.Repeat("n", 129)), WithName("a\x01b"), WithHeaders(map[string]string{"k": "a\nb"}),
		WithHeaders(map[string]string{"": "v"}), WithHeaders(map[string]string{"k": strings.Repeat("v", 4096)}),
	} {
		if _, err := q.Enqueue(bg, "a", []byte("x"), bad); !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrTooLarge) {
			t.Fatalf("bad name or headers: %v", err)
		}
	}
	if st := must(q.Stats(bg))(t); st.EnqueuedTotal != 4 {
		t.Fatalf("enqueued %d, want 4 (the refused ones wrote nothing)", st.EnqueuedTotal)
	}
	assertVerified(t, q)
}

// WithHeader adds one header beside those given, never over one of theirs,
// and a later WithHeaders replaces them all.
func TestWithHeaderAddsBesideTheGivenOnes(t *testing.T) {
	c := dial(t)
	q := newQueue(t, c)
	bg := ctxT(t)
	cases := []struct {
		opts []EnqueueOption
		want map[string]string
	}{
		{[]EnqueueOption{WithHeader("a", "1")}, map[string]string{"a": "1"}},
		{[]EnqueueOption{WithHeaders(map[string]string{"a": "mine", "b": "2"}), WithHeader("a", "1"), WithHeader("c", "3")},
			map[string]string{"a": "mine", "b": "2", "c": "3"}},
		{[]EnqueueOption{WithHeader("a", "1"), WithHeaders(map[string]string{"b": "2"})}, map[string]string{"b": "2"}},
	}
	for i, tc := range cases {
		id := must(q.Enqueue(bg, "a", nil, tc.opts...))(t)
		if j := must(q.Job(bg, id))(t); !maps.Equal(j.Headers, tc.want) {
			t.Fatalf("case %d: headers %v, want %v", i, j.Headers, tc.want)
		}
	}
	if _, err := q.Enqueue(bg, "a", nil, WithHeader("k", "a\tb")); !errors.Is(err, ErrInvalid) {
		t.Fatalf("a tab in a header: %v", err)
	}
	assertVerified(t, q)
}
