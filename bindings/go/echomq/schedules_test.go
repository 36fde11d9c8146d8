package echomq

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/echomq/echomq/bindings/go/internal/capi"
)

func TestScheduleNumbersAreTheCAPIs(t *testing.T) {
	if int(MissedFireOnce) != capi.ECHOMQ_MISSED_FIRE_ONCE || int(MissedSkip) != capi.ECHOMQ_MISSED_SKIP ||
		int(OverlapFire) != capi.ECHOMQ_OVERLAP_FIRE || int(OverlapSkip) != capi.ECHOMQ_OVERLAP_SKIP ||
		int(ScheduleUnchanged) != capi.ECHOMQ_SCHEDULE_UNCHANGED || int(ScheduleCreated) != capi.ECHOMQ_SCHEDULE_CREATED ||
		int(ScheduleUpdated) != capi.ECHOMQ_SCHEDULE_UPDATED {
		t.Fatal("a schedule constant differs from echomq/schedules.h")
	}
}

func TestScheduleUpsertIsIdempotentAndReadsBack(t *testing.T) {
	c := dial(t)
	q := newQueue(t, c)
	bg := ctxT(t)
	spec := ScheduleSpec{Cron: "0 3 * * *", Zone: "Europe/Paris", Lane: "t/reports", Payload: []byte("b\x00uild")}
	ch, next, err := q.UpsertSchedule(bg, "nightly", spec)
	if err != nil || ch != ScheduleCreated || next.IsZero() {
		t.Fatalf("create: %v %v %v", ch, next, err)
	}
	ch2, next2, err := q.UpsertSchedule(bg, "nightly", spec)
	if err != nil || ch2 != ScheduleUnchanged || !next2.Equal(next) {
		t.Fatalf("again: %v %v %v", ch2, next2, err)
	}
	s := must(q.Schedule(bg, "nightly"))(t)
	if s.Name != "nightly" || s.Cron != spec.Cron || s.Zone != spec.Zone || s.Lane != spec.Lane ||
		string(s.Payload) != string(spec.Payload) || !s.NextAt.Equal(next) || s.Runs != 0 || s.Paused {
		t.Fatalf("read back: %+v", s)
	}
	ticks := must(q.NextTicks(bg, "nightly", 3))(t)
	if len(ticks) != 3 || !ticks[0].Equal(next) {
		t.Fatalf("next ticks: %v", ticks)
	}
	for _, tk := range ticks {
		if h := tk.UTC().Hour(); (h != 1 && h != 2) || tk.UTC().Minute() != 0 {
			t.Fatalf("03:00 in Paris is not %v", tk.UTC())
		}
	}
	mustOK(t, q.PauseSchedule(bg, "nightly"))
	if !must(q.Schedule(bg, "nightly"))(t).Paused {
		t.Fatal("not paused")
	}
	mustOK(t, q.ResumeSchedule(bg, "nightly"))
	_, _, err = q.UpsertSchedule(bg, "every", ScheduleSpec{Every: time.Minute, Lane: "L"})
	mustOK(t, err)
	all := must(q.Schedules(bg))(t)
	if len(all) != 2 || all[0].Name != "every" || all[1].Name != "nightly" || all[0].Every != time.Minute {
		t.Fatalf("list: %+v", all)
	}
	mustOK(t, q.RemoveSchedule(bg, "every"))
	if err := q.RemoveSchedule(bg, "every"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("remove twice: %v", err)
	}
	if _, err := q.Schedule(bg, "every"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("read removed: %v", err)
	}
}

func TestScheduleBadInputIsRefusedBeforeAnyWrite(t *testing.T) {
	c := dial(t)
	q := newQueue(t, c)
	bg := ctxT(t)
	mustOK(t, func() error { _, err := q.Enqueue(bg, "L", nil); return err }())
	r := dialRaw(t)
	before := keyspace(t, r)
	cases := []struct {
		name string
		spec ScheduleSpec
		says string
	}{
		{"s", ScheduleSpec{Lane: "L"}, "exactly one of every_ms and cron"},
		{"s", ScheduleSpec{Lane: "L", Every: time.Second, Cron: "* * * * *"}, "exactly one of every_ms and cron"},
		{"s", ScheduleSpec{Lane: "L", Cron: "0 25 * * *"}, "hour field '25'"},
		{"s", ScheduleSpec{Lane: "L", Cron: "* * * * *", Zone: "Nowhere/Land"}, "unknown zone"},
		{"s", ScheduleSpec{Lane: "L", Every: time.Second, Start: time.Unix(2000, 0), End: time.Unix(1000, 0)}, "end_at_ms is not after"},
		{"s", ScheduleSpec{Lane: "", Every: time.Second}, ""},
		{"a b", ScheduleSpec{Lane: "L", Every: time.Second}, "outside [A-Za-z0-9_.:-]"},
		{"s", ScheduleSpec{Lane: "L", Cron: "0 0 31 2 *"}, "never fires"},
		{"s", ScheduleSpec{Lane: "L", Every: -time.Second}, "may not be negative"},
	}
	for _, k := range cases {
		_, _, err := q.UpsertSchedule(bg, k.name, k.spec)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), k.says) {
			t.Errorf("%+v: %v", k.spec, err)
		}
	}
	if after := keyspace(t, r); !reflect.DeepEqual(before, after) {
		t.Fatal("a refused upsert wrote")
	}
	if _, err := q.NextTicks(bg, "s", 0); !errors.Is(err, ErrInvalid) {
		t.Fatalf("n 0: %v", err)
	}
}

func TestScheduleTicksRunOnceUnderAWorker(t *testing.T) {
	c := dial(t)
	q := newQueue(t, c)
	bg := ctxT(t)
	_, first, err := q.UpsertSchedule(bg, "fast", ScheduleSpec{Every: 100 * time.Millisecond, Lane: "L",
		Payload: []byte("tick"), Overlap: OverlapSkip, MaxAttempts: 2})
	mustOK(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var mu sync.Mutex
	seen := map[uint64]int{}
	w := &Worker{URL: serverURL, Queue: q.Name(), Concurrency: 2, Handler: func(ctx context.Context, j *Job) error {
		mu.Lock()
		defer mu.Unlock()
		seen[j.ID]++
		if len(seen) >= 5 {
			cancel()
		}
		return nil
	}}
	mustOK(t, w.Run(ctx))
	mustOK(t, q.PauseSchedule(bg, "fast"))
	s := must(q.Schedule(bg, "fast"))(t)
	mu.Lock()
	defer mu.Unlock()
	if len(seen) < 5 || s.Runs < uint64(len(seen)) || s.FiredTick.Before(first) || s.Lateness() < 0 {
		t.Fatalf("seen %d, schedule %+v", len(seen), s)
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("job %d ran %d times", id, n)
		}
	}
}

func TestEnqueueAtAndTickOf(t *testing.T) {
	c := dial(t)
	q := newQueue(t, c)
	bg := ctxT(t)
	now := time.Now()
	past := must(q.Enqueue(bg, "L", []byte("p"), WithAt(now.Add(-time.Minute))))(t)
	later := must(q.Enqueue(bg, "L", []byte("l"), WithAt(now.Add(10*time.Minute)), WithKey("k1")))(t)
	if _, err := q.Enqueue(bg, "L", []byte("l"), WithAt(now.Add(10*time.Minute)), WithKey("k1")); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("same key: %v", err)
	}
	j := must(q.Claim(bg, time.Minute))(t)
	if j.ID != past {
		t.Fatalf("claimed %d, want %d", j.ID, past)
	}
	mustOK(t, j.Ack(bg))
	if got := must(q.Job(bg, later))(t); got.State != StateDelayed || got.DueAt.UnixMilli() != now.Add(10*time.Minute).UnixMilli() {
		t.Fatalf("later: %+v", got)
	}
	ids := must(q.EnqueueBatch(bg, []BatchJob{{Group: "L", Payload: []byte("b")}}, WithAt(now.Add(time.Hour))))(t)
	if got := must(q.Job(bg, ids[0]))(t); got.State != StateDelayed {
		t.Fatalf("batch at: %+v", got)
	}
	if _, err := q.Enqueue(bg, "L", nil, WithAt(now), WithDelay(time.Second)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("at and delay: %v", err)
	}
	if _, err := q.Enqueue(bg, "L", nil, WithAt(now.Add(400*24*time.Hour))); !errors.Is(err, ErrInvalid) {
		t.Fatalf("too far: %v", err)
	}
	for _, id := range append(ids, later) {
		mustOK(t, q.Delete(bg, id))
	}

	_, next, err := q.UpsertSchedule(bg, "kept", ScheduleSpec{Every: 50 * time.Millisecond, Lane: "K"})
	mustOK(t, err)
	time.Sleep(time.Until(next) + 30*time.Millisecond)
	job := must(q.Claim(bg, time.Minute))(t)
	name, tick, err := q.TickOf(bg, job.ID)
	if err != nil || name != "kept" || tick.Before(next) {
		t.Fatalf("tick of %d: %q %v %v", job.ID, name, tick, err)
	}
	key := "sched:kept:" + strconv.FormatInt(tick.UnixMilli(), 10)
	if id, err := q.Enqueue(bg, "K", nil, WithKey(key)); !errors.Is(err, ErrDuplicate) || id != job.ID {
		t.Fatalf("the tick's key: %d %v", id, err)
	}
	mustOK(t, job.Ack(bg))
	mustOK(t, q.RemoveSchedule(bg, "kept"))
	for {
		j, err := q.Claim(bg, time.Minute)
		if errors.Is(err, ErrEmpty) {
			break
		}
		mustOK(t, err)
		mustOK(t, j.Ack(bg))
	}
	plain := must(q.Enqueue(bg, "P", nil))(t)
	if name, tick, err := q.TickOf(bg, plain); err != nil || name != "" || !tick.IsZero() {
		t.Fatalf("plain job: %q %v %v", name, tick, err)
	}
	mustOK(t, q.Delete(bg, plain))
}
