// The Go side of the chaos workload (tests/chaos/README.md): a producer or
// a worker engine that records every action to a history file, one JSON
// object a line (the format is in tests/chaos/README.md).
//
//	chaos -mode produce|engine -url URL -queue Q -history FILE -who NAME -seed N -lanes a,b [-rate R] [-schedules SPECS] [-flows] [-life]
//
// SPECS: the run's schedules, "name|lane|every_ms|cron|missed|grace_ms|overlap"
// joined by ';' (chaos.py, schedule_plan); a producer upserts one of them,
// unchanged, every 2-6 s, as a process at boot would (nothing may change).
//
// Runs until SIGTERM or SIGINT: a producer stops, an engine drains.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/echomq/echomq/bindings/go/echomq"
)

type history struct {
	mu  sync.Mutex
	f   *os.File
	who string
}

// record writes one line {"ev":ev,"who":who,"lang":"go",...fields} at once
// (a kill -9 leaves at most a cut last line).
func (h *history) record(ev string, fields map[string]any) {
	fields["ev"], fields["who"], fields["lang"] = ev, h.who, "go"
	b, _ := json.Marshal(fields)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.f.Write(append(b, '\n'))
}

func nowMS() float64 { return float64(time.Now().UnixNano()) / 1e6 }

func code(err error) int {
	if err == nil {
		return 0
	}
	var e *echomq.Error
	if errors.As(err, &e) {
		return int(e.Code)
	}
	return -99
}

// upsertSchedule upserts one of the run's schedules unchanged (the history's
// "upsert" line: changed must be 0).
func upsertSchedule(q *echomq.Queue, h *history, spec string) {
	f := strings.Split(spec, "|")
	if len(f) != 7 {
		return
	}
	every, _ := strconv.Atoi(f[2])
	grace, _ := strconv.Atoi(f[5])
	s := echomq.ScheduleSpec{Every: time.Duration(every) * time.Millisecond, Cron: f[3], Lane: f[1],
		Payload: []byte("tick:" + f[0]), Grace: time.Duration(grace) * time.Millisecond}
	if f[4] == "skip" {
		s.Missed = echomq.MissedSkip
	}
	if f[6] == "skip" {
		s.Overlap = echomq.OverlapSkip
	}
	t0 := nowMS()
	changed, next, err := q.UpsertSchedule(context.Background(), f[0], s)
	ch, nx := int(changed), int64(0)
	if err != nil {
		ch = -1
	} else if !next.IsZero() {
		nx = next.UnixMilli()
	}
	h.record("upsert", map[string]any{"name": f[0], "rc": code(err), "changed": ch, "next": nx, "t0": t0, "t1": nowMS()})
}

// enqueueFlow enqueues a flow in one call, as the Python producer does
// (tests/chaos/workload.py, enqueue_flow): a parent with 1-4 children on
// random lanes, now and then a grandchild under the first child, each
// child's OnFail drawn. One "flow" line and an "enq" line a job.
func enqueueFlow(q *echomq.Queue, h *history, rng *rand.Rand, seq int, lanes []string) {
	type row struct{ name, lane, parent string }
	rows := []row{{"p", lanes[rng.Intn(len(lanes))], ""}}
	for i, n := 0, 1+rng.Intn(4); i < n; i++ {
		rows = append(rows, row{fmt.Sprintf("c%d", i), lanes[rng.Intn(len(lanes))], "p"})
	}
	if rng.Float64() < 0.3 {
		rows = append(rows, row{"g0", lanes[rng.Intn(len(lanes))], "c0"})
	}
	onFail := []echomq.OnFail{echomq.FailParent, echomq.FailParent, echomq.IgnoreFailure, echomq.ContinueOnFailure}
	f := echomq.NewFlow()
	for _, r := range rows {
		payload := fmt.Sprintf("%s:f%d:%s", h.who, seq, r.name)
		f.Add(r.name, echomq.Step{Lane: r.lane, Payload: []byte(payload), OnFail: onFail[rng.Intn(len(onFail))]}, r.parent)
	}
	t0 := nowMS()
	ids, err := q.EnqueueFlow(context.Background(), f, 0)
	t1 := nowMS()
	jobs := make([][]any, 0, len(rows))
	for _, r := range rows {
		jobs = append(jobs, []any{r.name, ids[r.name], r.parent})
	}
	h.record("flow", map[string]any{"seq": seq, "rc": code(err), "jobs": jobs, "t0": t0, "t1": t1})
	for _, r := range rows {
		h.record("enq", map[string]any{"seq": seq, "lane": r.lane, "pl": fmt.Sprintf("%s:f%d:%s", h.who, seq, r.name),
			"id": ids[r.name], "rc": code(err), "delay": 0, "max": 0, "flow": r.name, "t0": t0, "t1": t1})
	}
}

// recentJob is a producer's acknowledged plain enqueue: what it may cancel.
type recentJob struct {
	id uint64
	pl string
}

// cancelOne cancels one of the producer's recent jobs, whatever it is doing
// (waiting, delayed, running, finished), now and then removing it: a
// `cancel` line, as the Python producer's cancel_one ("" state when refused).
func cancelOne(q *echomq.Queue, h *history, rng *rand.Rand, recent []recentJob) {
	j := recent[rng.Intn(len(recent))]
	remove := rng.Float64() < 0.2
	t0 := nowMS()
	was, err := q.Cancel(context.Background(), j.id, "chaos", remove)
	state := ""
	if err == nil {
		state = was.String()
	}
	rm := 0
	if remove {
		rm = 1
	}
	h.record("cancel", map[string]any{"id": j.id, "pl": j.pl, "remove": rm, "rc": code(err), "state": state,
		"t0": t0, "t1": nowMS()})
}

func produce(ctx context.Context, h *history, rng *rand.Rand, url, queue string, lanes []string, rate float64, specs []string, flows, life bool) {
	var c *echomq.Client
	for c == nil && ctx.Err() == nil {
		var err error
		c, err = echomq.Dial(ctx, url, echomq.WithConnectTimeout(time.Second), echomq.WithCommandTimeout(2*time.Second))
		if err != nil {
			time.Sleep(200 * time.Millisecond)
		}
	}
	if c == nil {
		return
	}
	defer c.Close()
	q := c.Queue(queue)
	gap := time.Duration(float64(time.Second) / rate)
	nextUpsert := time.Now().Add(2*time.Second + time.Duration(rng.Int63n(int64(4*time.Second))))
	var recent []recentJob
	for seq := 1; ctx.Err() == nil; seq++ {
		if len(specs) > 0 && time.Now().After(nextUpsert) {
			upsertSchedule(q, h, specs[rng.Intn(len(specs))])
			nextUpsert = time.Now().Add(2*time.Second + time.Duration(rng.Int63n(int64(4*time.Second))))
		}
		if flows && rng.Float64() < 0.05 { // about two flows a second at the default rate
			enqueueFlow(q, h, rng, seq, lanes)
			time.Sleep(gap)
			continue
		}
		if life && len(recent) > 0 && rng.Float64() < 0.04 {
			cancelOne(q, h, rng, recent)
		}
		lane := lanes[rng.Intn(len(lanes))]
		var opts []echomq.EnqueueOption
		delay, maxAtt, timeout, ttl, drop := 0, 0, 0, 0, 0
		if rng.Float64() < 0.1 {
			delay = rng.Intn(1500)
			opts = append(opts, echomq.WithDelay(time.Duration(delay)*time.Millisecond))
		}
		if rng.Float64() < 0.3 {
			maxAtt = 1 + rng.Intn(4)
			opts = append(opts, echomq.WithMaxAttempts(uint32(maxAtt)))
		}
		// As the Python producer's life_options: a time limit of 50 ms-1 s,
		// a start deadline 0.1-3 s after the job is due (a fifth dropped).
		if life && rng.Float64() < 0.1 {
			timeout = 50 + rng.Intn(951)
			opts = append(opts, echomq.WithTimeout(time.Duration(timeout)*time.Millisecond))
		}
		if life && rng.Float64() < 0.1 {
			ttl = delay + 100 + rng.Intn(2901)
			opts = append(opts, echomq.WithTTL(time.Duration(ttl)*time.Millisecond))
			if rng.Float64() < 0.2 {
				drop = 1
				opts = append(opts, echomq.WithExpireDrop())
			}
		}
		payload := fmt.Sprintf("%s:%d", h.who, seq)
		t0 := nowMS()
		// A context that is not the run's: a stop must not cut a call short
		// into an unknown outcome the history could not tell from a fault.
		id, err := q.Enqueue(context.Background(), lane, []byte(payload), opts...)
		t1 := nowMS()
		if err != nil {
			id = 0
		}
		h.record("enq", map[string]any{"seq": seq, "lane": lane, "pl": payload, "id": id, "rc": code(err),
			"delay": delay, "max": maxAtt, "timeout": timeout, "ttl": ttl, "drop": drop, "t0": t0, "t1": t1})
		if err == nil {
			recent = append(recent, recentJob{id, payload})
			if len(recent) > 20 {
				recent = recent[1:]
			}
		}
		if err != nil {
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(gap/2 + time.Duration(rng.Int63n(int64(gap)+1)))
	}
}

func engine(ctx context.Context, h *history, seed int64, url, queue string) {
	var mu sync.Mutex
	rng := rand.New(rand.NewSource(seed))
	w := &echomq.Worker{
		URL: url, Queue: queue, Concurrency: 4, Lease: 3 * time.Second, RetryIn: echomq.RetryNow,
		IdleWait: time.Second, DrainTimeout: 5 * time.Second,
		DialOptions: []echomq.DialOption{echomq.WithConnectTimeout(time.Second), echomq.WithCommandTimeout(3 * time.Second)},
		OnError:     func(error) {},
		Handler: func(_ context.Context, j *echomq.Job) error {
			t1 := nowMS()
			h.record("deliver", map[string]any{"how": "engine", "id": j.ID, "tok": j.Token, "att": j.Attempt,
				"max": j.MaxAttempts, "lane": j.Group, "pl": string(j.Payload),
				"lease_until": j.LeaseUntil.UnixMilli(), "enq_at": j.EnqueuedAt.UnixMilli(), "t0": t1, "t1": t1})
			mu.Lock()
			work, p := rng.Intn(15), rng.Float64()
			if rng.Float64() < 0.05 { // a slow job: a stale holder's settlement then meets a holder
				work = 200 + rng.Intn(800)
			}
			mu.Unlock()
			time.Sleep(time.Duration(work) * time.Millisecond)
			op := "ack"
			var err error
			switch {
			case p < 0.08:
				op, err = "fail", errors.New("chaos: a failed attempt")
			case p < 0.10:
				op, err = "discard", echomq.Discard(errors.New("chaos: discarded"))
			default:
				j.SetResult([]byte(fmt.Sprintf("%s:%d", h.who, j.Token)))
			}
			h.record("report", map[string]any{"op": op, "id": j.ID, "tok": j.Token, "rc": 0, "t0": nowMS(), "t1": nowMS()})
			return err
		},
	}
	// Run retries its start while the server is away.
	for ctx.Err() == nil {
		if err := w.Run(ctx); err == nil || ctx.Err() != nil {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func main() {
	mode := flag.String("mode", "", "produce or engine")
	url := flag.String("url", "", "server URL")
	queue := flag.String("queue", "", "queue name")
	path := flag.String("history", "", "history file")
	who := flag.String("who", "go", "process name in the history")
	seed := flag.Int64("seed", 1, "seed of the process's choices")
	lanes := flag.String("lanes", "", "comma-separated lanes")
	rate := flag.Float64("rate", 50, "enqueues per second")
	flows := flag.Bool("flows", false, "produce: enqueue flows too")
	life := flag.Bool("life", false, "produce: time limits, start deadlines and cancels")
	schedules := flag.String("schedules", "", "the run's schedules (produce): name|lane|every_ms|cron|missed|grace_ms|overlap;...")
	flag.Parse()
	f, err := os.OpenFile(*path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	h := &history{f: f, who: *who}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	h.record("start", map[string]any{"mode": *mode, "pid": os.Getpid(), "t1": nowMS()})
	switch *mode {
	case "produce":
		var specs []string
		for _, x := range strings.Split(*schedules, ";") {
			if x != "" {
				specs = append(specs, x)
			}
		}
		produce(ctx, h, rand.New(rand.NewSource(*seed)), *url, *queue, strings.Split(*lanes, ","), *rate, specs, *flows, *life)
	case "engine":
		engine(ctx, h, *seed, *url, *queue)
	default:
		fmt.Fprintln(os.Stderr, "unknown -mode")
		os.Exit(2)
	}
	h.record("stop", map[string]any{"rc": 0, "t1": nowMS()})
	f.Close()
}
