package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/echomq/echomq/bindings/go/echomq"
	"github.com/hibiken/asynq"
)

// job is one job of any library: its producer (tenant), enqueue time (Unix
// ns), handler time and padding.
type job struct {
	p       int
	enq     int64
	sleepMs float64
	pad     string
}

func (j job) payload() []byte {
	return []byte(fmt.Sprintf("%d %d %g %s", j.p, j.enq, j.sleepMs, j.pad))
}

func parse(b []byte) job {
	f := strings.SplitN(string(b), " ", 4)
	p, _ := strconv.Atoi(f[0])
	enq, _ := strconv.ParseInt(f[1], 10, 64)
	ms, _ := strconv.ParseFloat(f[2], 64)
	return job{p: p, enq: enq, sleepMs: ms}
}

// run is the handler body of every library: record the start, then spend
// the job's handler time.
func run(rec *recorder, b []byte) {
	j := parse(b)
	rec.started(j.p, j.enq)
	if j.sleepMs > 0 {
		time.Sleep(time.Duration(j.sleepMs * float64(time.Millisecond)))
	}
}

// lib is one library: how jobs are enqueued and workers run, its documented
// way at concurrency 8, in this process.
type lib interface {
	enqueue(jobs []job) error
	// start runs the workers until the returned stop is called.
	start(rec *recorder) (stop func(), err error)
	close()
}

type echomqLib struct {
	url   string
	c     *echomq.Client
	q     *echomq.Queue
	fixed bool // fixed prefetch (TargetWait = FixedPrefetch)
	pre   int
}

func newEchomq(url string, pre int, fixed bool) (lib, error) {
	c, err := echomq.Dial(context.Background(), url)
	if err != nil {
		return nil, err
	}
	return &echomqLib{url: url, c: c, q: c.Queue("peers"), fixed: fixed, pre: pre}, nil
}

func (l *echomqLib) enqueue(jobs []job) error {
	for i := 0; i < len(jobs); i += 1000 {
		b := make([]echomq.BatchJob, 0, 1000)
		for _, j := range jobs[i:min(i+1000, len(jobs))] {
			b = append(b, echomq.BatchJob{Group: "p" + strconv.Itoa(j.p), Payload: j.payload()})
		}
		if _, err := l.q.EnqueueBatch(context.Background(), b); err != nil {
			return err
		}
	}
	return nil
}

func (l *echomqLib) start(rec *recorder) (func(), error) {
	ctx, cancel := context.WithCancel(context.Background())
	w := &echomq.Worker{URL: l.url, Queue: "peers", Concurrency: 8, Prefetch: l.pre,
		Handler: func(_ context.Context, j *echomq.Job) error {
			run(rec, j.Payload)
			return nil
		}}
	if l.fixed {
		w.TargetWait = echomq.FixedPrefetch
	}
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	return func() {
		cancel()
		if err := <-done; err != nil {
			fmt.Println("echomq worker:", err)
		}
	}, nil
}

func (l *echomqLib) close() { l.c.Close() }

type asynqLib struct {
	opt asynq.RedisClientOpt
	c   *asynq.Client
}

func newAsynq(url string) (lib, error) {
	addr := url[strings.Index(url, "://")+3:]
	opt := asynq.RedisClientOpt{Addr: addr}
	return &asynqLib{opt: opt, c: asynq.NewClient(opt)}, nil
}

func (l *asynqLib) enqueue(jobs []job) error {
	// asynq enqueues one task per call; no batch API.
	for _, j := range jobs {
		if _, err := l.c.Enqueue(asynq.NewTask("job", j.payload())); err != nil {
			return err
		}
	}
	return nil
}

func (l *asynqLib) start(rec *recorder) (func(), error) {
	srv := asynq.NewServer(l.opt, asynq.Config{Concurrency: 8, LogLevel: asynq.WarnLevel})
	mux := asynq.NewServeMux()
	mux.HandleFunc("job", func(_ context.Context, t *asynq.Task) error {
		run(rec, t.Payload())
		return nil
	})
	if err := srv.Start(mux); err != nil {
		return nil, err
	}
	return srv.Shutdown, nil
}

func (l *asynqLib) close() { l.c.Close() }

var labels = map[string]string{
	"echomq":            "echomq Go Worker",
	"echomq-fixed120":   "echomq Go Worker, prefetch 120 fixed",
	"echomq-bounded120": "echomq Go Worker, prefetch 120 bounded",
	"asynq":             "asynq",
}

func makeLib(name, url string) (lib, error) {
	switch name {
	case "echomq":
		return newEchomq(url, 0, false)
	case "echomq-fixed120":
		return newEchomq(url, 120, true)
	case "echomq-bounded120":
		return newEchomq(url, 120, false)
	case "asynq":
		return newAsynq(url)
	}
	return nil, fmt.Errorf("unknown library %q", name)
}
