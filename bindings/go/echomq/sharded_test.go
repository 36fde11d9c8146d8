package echomq

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// shardOf is the index of the one shard whose queue knows lane group.
func shardOf(t *testing.T, c *Client, shards []string, group string) int {
	t.Helper()
	home := -1
	for i, s := range shards {
		if must(c.Queue(s).Lane(ctxT(t), group))(t).Known {
			if home >= 0 {
				t.Fatalf("lane %s lives in shards %d and %d", group, home, i)
			}
			home = i
		}
	}
	if home < 0 {
		t.Fatalf("lane %s lives in no shard", group)
	}
	return home
}

func TestShardedCreateReopenAndRefuse(t *testing.T) {
	ctx := ctxT(t)
	c := dial(t)
	name := newQueue(t, c).Name()
	q := must(c.CreateSharded(ctx, name, 3))(t)
	if q.Name() != name {
		t.Fatalf("queue %q, want %q", q.Name(), name)
	}
	shards := must(q.Shards(ctx))(t)
	if len(shards) != 3 {
		t.Fatalf("shards %v, want 3", shards)
	}
	for i, s := range shards {
		if !strings.HasPrefix(s, fmt.Sprintf("%s.s%d-", name, i)) {
			t.Fatalf("shard %d is named %q", i, s)
		}
	}
	again := must(must(c.CreateSharded(ctx, name, 3))(t).Shards(ctx))(t)
	byName := must(c.Queue(name).Shards(ctx))(t)
	if !slices.Equal(again, shards) || !slices.Equal(byName, shards) {
		t.Fatalf("reopened %v, by name %v, want %v", again, byName, shards)
	}

	r := dialRaw(t)
	before := keyspace(t, r)
	_, err := c.CreateSharded(ctx, name, 4)
	var e *Error
	if !errors.Is(err, ErrShards) || !errors.As(err, &e) || e.Code != CodeShards {
		t.Fatalf("another count: %v, want ErrShards", err)
	}
	for _, bad := range []int{0, -1, ShardsMax + 1} {
		if _, err := c.CreateSharded(ctx, name, bad); !errors.Is(err, ErrInvalid) {
			t.Fatalf("count %d: %v, want ErrInvalid", bad, err)
		}
	}
	if _, err := c.CreateSharded(ctx, strings.Repeat("x", 126), 2); !errors.Is(err, ErrInvalid) {
		t.Fatalf("no room for the suffix: %v, want ErrInvalid", err)
	}
	if after := keyspace(t, r); !reflect.DeepEqual(before, after) {
		t.Fatal("a refused create changed the keyspace")
	}

	// A plain queue in use cannot become sharded; it stays as it was.
	plain := newQueue(t, c)
	if got := must(plain.Shards(ctx))(t); got == nil || len(got) != 0 {
		t.Fatalf("plain queue shards %#v, want empty", got)
	}
	must(plain.Enqueue(ctx, "a", []byte("x")))(t)
	if _, err := c.CreateSharded(ctx, plain.Name(), 2); !errors.Is(err, ErrShards) {
		t.Fatalf("plain queue in use: %v, want ErrShards", err)
	}
	if st := must(plain.Stats(ctx))(t); st.Pending != 1 || len(must(plain.Shards(ctx))(t)) != 0 {
		t.Fatalf("plain queue changed: %+v", st)
	}
	mustOK(t, must(plain.Claim(ctx, time.Minute))(t).Ack(ctx))
}

func TestShardedEnqueueClaimAckByTheIDsGiven(t *testing.T) {
	ctx := ctxT(t)
	c := dial(t)
	q := must(c.CreateSharded(ctx, newQueue(t, c).Name(), 3))(t)
	shards := must(q.Shards(ctx))(t)
	const lanes, per = 12, 5
	groupOf := map[uint64]string{}
	var batch []BatchJob
	for j := 0; j < per; j++ {
		for g := 0; g < lanes; g++ {
			batch = append(batch, BatchJob{Group: fmt.Sprintf("g%d", g), Payload: []byte(fmt.Sprint(j))})
		}
	}
	for _, b := range batch[:30] {
		groupOf[must(q.Enqueue(ctx, b.Group, b.Payload))(t)] = b.Group
	}
	for i, id := range must(q.EnqueueBatch(ctx, batch[30:]))(t) {
		groupOf[id] = batch[30+i].Group
	}
	if len(groupOf) != lanes*per {
		t.Fatalf("%d distinct ids for %d jobs", len(groupOf), lanes*per)
	}
	home := map[string]int{}
	used := map[int]bool{}
	for g := 0; g < lanes; g++ {
		grp := fmt.Sprintf("g%d", g)
		home[grp] = shardOf(t, c, shards, grp)
		used[home[grp]] = true
	}
	if len(used) != 3 {
		t.Fatalf("twelve groups reach shards %v, want all three", used)
	}
	for id, g := range groupOf {
		if int(id%3) != home[g] {
			t.Fatalf("job %d of lane %s (shard %d) names shard %d", id, g, home[g], id%3)
		}
	}

	st := must(q.Stats(ctx))(t)
	if st.Pending != lanes*per || st.Lanes != lanes || st.EnqueuedTotal != lanes*per {
		t.Fatalf("summed stats %+v", st)
	}
	var sum uint64
	for _, s := range shards {
		sum += must(c.Queue(s).Stats(ctx))(t).Pending
	}
	if sum != st.Pending {
		t.Fatalf("shards hold %d pending, the queue says %d", sum, st.Pending)
	}

	// Claims rotate over the shards: three in a row come from three shards.
	var claimed []*Job
	for k := 0; k < 6; k++ {
		claimed = append(claimed, must(q.Claim(ctx, time.Minute))(t))
	}
	for _, turn := range [][]*Job{claimed[:3], claimed[3:]} {
		seen := map[uint64]bool{}
		for _, j := range turn {
			seen[j.ID%3] = true
		}
		if len(seen) != 3 {
			t.Fatalf("three claims in a row came from shards %v", seen)
		}
	}
	for _, j := range claimed {
		if groupOf[j.ID] != j.Group {
			t.Fatalf("job %d claimed from lane %s, enqueued on %s", j.ID, j.Group, groupOf[j.ID])
		}
		if got := must(q.Job(ctx, j.ID))(t); got.State != StateLeased {
			t.Fatalf("job %d is %v, want leased", j.ID, got.State)
		}
		mustOK(t, j.Ack(ctx))
	}
	if err := claimed[0].Ack(ctx); !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrStaleLease) {
		t.Fatalf("second ack: %v", err)
	}
	var rest []*Job
	for {
		j, err := q.Claim(ctx, time.Minute)
		if errors.Is(err, ErrEmpty) {
			break
		}
		mustOK(t, err)
		rest = append(rest, j)
	}
	got := make([]uint64, 0, lanes*per)
	for _, j := range append(claimed, rest...) {
		got = append(got, j.ID)
	}
	sort.Slice(got, func(a, b int) bool { return got[a] < got[b] })
	want := make([]uint64, 0, lanes*per)
	for id := range groupOf {
		want = append(want, id)
	}
	sort.Slice(want, func(a, b int) bool { return want[a] < want[b] })
	if !slices.Equal(got, want) {
		t.Fatalf("claimed %d jobs, want each of the %d enqueued once", len(got), len(want))
	}
	if refused := must(q.AckMany(ctx, rest))(t); len(refused) != 0 {
		t.Fatalf("%d acks of jobs of every shard refused", len(refused))
	}
	st = must(q.Stats(ctx))(t)
	if st.Pending != 0 || st.Leased != 0 || st.AckedTotal != lanes*per || st.ClaimedTotal != lanes*per {
		t.Fatalf("stats after the drain %+v", st)
	}
}

func TestShardedWorkerDrainsEachJobOnce(t *testing.T) {
	c := dial(t)
	q := must(c.CreateSharded(ctxT(t), newQueue(t, c).Name(), 4))(t)
	want := seed(t, q, 30, 20)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cnt := &counter{seen: map[uint64]int{}, want: len(want), cancel: cancel}
	var errs atomic.Int64
	w := &Worker{
		URL: serverURL, Queue: q.Name(), Concurrency: 4,
		Handler: func(ctx context.Context, j *Job) error {
			cnt.record(j.ID)
			return nil
		},
		OnError: func(err error) { errs.Add(1); t.Logf("worker: %v", err) },
	}
	mustOK(t, w.Run(ctx))
	if ctx.Err() == context.DeadlineExceeded {
		t.Fatal("worker did not finish in 60 s")
	}
	cnt.check(t, want)
	st := must(q.Stats(ctxT(t)))(t)
	if st.AckedTotal != 600 || st.Pending != 0 || st.Leased != 0 || errs.Load() != 0 {
		t.Fatalf("stats %+v, %d worker errors", st, errs.Load())
	}
}
