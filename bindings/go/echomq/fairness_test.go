package echomq

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// Lane A holds 1,000 jobs, B..J 10 each, all enqueued after A's backlog:
// the ring serves every lane once per turn, so the first 100 claims are
// ten full turns that serve all of B..J, and A gets one job per turn only.
func TestFairnessSkewedLoad(t *testing.T) {
	ctx := ctxT(t)
	q := newQueue(t, dial(t))
	big := make([]BatchJob, 1000)
	for i := range big {
		big[i] = BatchJob{Group: "A", Payload: []byte(fmt.Sprint(i))}
	}
	ids := must(q.EnqueueBatch(ctx, big))(t)
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] {
			t.Fatalf("batch ids not in mint order: %d then %d", ids[i-1], ids[i])
		}
	}
	lanes := []string{"B", "C", "D", "E", "F", "G", "H", "I", "J"}
	for _, g := range lanes {
		for i := 0; i < 10; i++ {
			must(q.Enqueue(ctx, g, []byte(fmt.Sprint(i))))(t)
		}
	}

	served := map[string]int{}
	var order []string
	for i := 0; i < 100; i++ {
		job := must(q.Claim(ctx, time.Minute))(t)
		served[job.Group]++
		order = append(order, job.Group)
		mustOK(t, job.Ack(ctx))
	}
	for _, g := range append([]string{"A"}, lanes...) {
		if served[g] != 10 {
			t.Errorf("lane %s served %d times in the first 100 claims, want 10 (order %v)", g, served[g], order)
		}
	}
	// Round-robin: each turn of ten claims serves ten different lanes, in
	// the same order every turn.
	for turn := 0; turn < 10; turn++ {
		seen := map[string]bool{}
		for i := 0; i < 10; i++ {
			g := order[turn*10+i]
			if seen[g] {
				t.Fatalf("turn %d serves lane %s twice: %v", turn, g, order[turn*10:turn*10+10])
			}
			seen[g] = true
			if g != order[i] {
				t.Fatalf("turn %d position %d is %s, first turn had %s", turn, i, g, order[i])
			}
		}
	}
	// Within lane A, mint order: the next A job is the 11th.
	job := must(q.Claim(ctx, time.Minute))(t)
	if job.Group != "A" || string(job.Payload) != "10" {
		t.Fatalf("claim 101 got %s/%s, want A/10", job.Group, job.Payload)
	}
	mustOK(t, job.Ack(ctx))
	st := must(q.Stats(ctx))(t)
	if st.Pending != 1000-11 || st.Ring != 1 {
		t.Fatalf("after the small lanes drained: pending %d ring %d, want 989 and 1", st.Pending, st.Ring)
	}
}

// Weights 1:2:3 under WClaim: each call serves one lane, weight jobs at a
// time, and over any window |served_i/w_i - served_j/w_j| <= 2.
func TestWeightsWClaim(t *testing.T) {
	ctx := ctxT(t)
	q := newQueue(t, dial(t))
	weights := map[string]uint32{"w1": 1, "w2": 2, "w3": 3}
	for g, w := range weights {
		mustOK(t, q.Weight(ctx, g, w))
	}
	var batch []BatchJob
	for _, g := range []string{"w1", "w2", "w3"} {
		for i := 0; i < 120; i++ {
			batch = append(batch, BatchJob{Group: g, Payload: []byte{byte(i)}})
		}
	}
	must(q.EnqueueBatch(ctx, batch))(t)
	for g, w := range weights {
		lane := must(q.Lane(ctx, g))(t)
		if lane.Weight != w || lane.WeightIsDefault || lane.Depth != 120 {
			t.Fatalf("lane %s: %+v", g, lane)
		}
	}

	served := map[string]float64{}
	for call := 0; call < 60; call++ { // 20 turns: 120 jobs of w3, 40 of w1
		jobs := must(q.WClaim(ctx, time.Minute, 100))(t)
		g := jobs[0].Group
		if uint32(len(jobs)) != weights[g] {
			t.Fatalf("call %d: %d jobs from %s, want its weight %d", call, len(jobs), g, weights[g])
		}
		for i, j := range jobs {
			if j.Group != g {
				t.Fatalf("wclaim mixed lanes %s and %s", g, j.Group)
			}
			if i > 0 && j.ID <= jobs[i-1].ID {
				t.Fatalf("wclaim jobs not in mint order")
			}
			mustOK(t, j.Ack(ctx))
		}
		served[g] += float64(len(jobs))
		for a, wa := range weights {
			for b, wb := range weights {
				if d := served[a]/float64(wa) - served[b]/float64(wb); d > 2 || d < -2 {
					t.Fatalf("after call %d: %s %v/%d vs %s %v/%d", call, a, served[a], wa, b, served[b], wb)
				}
			}
		}
	}
	if served["w1"] != 20 || served["w2"] != 40 || served["w3"] != 60 {
		t.Fatalf("served %v after 20 turns, want 20:40:60", served)
	}
	// max caps a turn below the weight.
	jobs := must(q.WClaim(ctx, time.Minute, 1))(t)
	if len(jobs) != 1 {
		t.Fatalf("wclaim max 1 gave %d jobs", len(jobs))
	}
	mustOK(t, jobs[0].Ack(ctx))
	mustOK(t, q.ClearWeight(ctx, "w3"))
	if lane := must(q.Lane(ctx, "w3"))(t); lane.Weight != 1 || !lane.WeightIsDefault {
		t.Fatalf("cleared weight: %+v", lane)
	}
	drain(t, q)
}

// drain claims and acks everything left, so Verify sees a settled queue.
func drain(t testing.TB, q *Queue) int {
	t.Helper()
	ctx := ctxT(t)
	n := 0
	for {
		jobs, err := q.WClaim(ctx, time.Minute, 1000)
		if err != nil {
			if errors.Is(err, ErrEmpty) {
				return n
			}
			t.Fatalf("drain: %v", err)
		}
		for _, j := range jobs {
			mustOK(t, j.Ack(ctx))
			n++
		}
	}
}
