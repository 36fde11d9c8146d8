// Command gopeers runs EchoMQ's Go Worker side by side with asynq on one
// valkey-server (run.sh starts it), concurrency 8 each, and prints one
// table with ratios. Every library runs the same jobs and records the start
// of each job in the same way, so waits and start order are read alike.
//
// Phases, per library, on a flushed server:
//
//	drain     N no-op jobs over 100 tenants enqueued, then the workers
//	          started: jobs/s from the first start to the last; server CPU
//	          and commands per job (INFO cpu / commandstats, enqueue
//	          through drain)
//	mem       N pending jobs with a 100-byte payload: used_memory per job
//	skew      one heavy tenant (10,000) and 99 small ones (10 each) spread
//	          over the arrival order: at which start each small one finished
//	overload  (e) a heavy tenant kept -backlog deep, enqueuing as fast as the
//	          workers drain; quiet tenants at -quiet-rate jobs/s in total;
//	          handlers of -handler-ms. Quiet waits (enqueue -> start) of the
//	          jobs sent in the window after the warm-up: p50, p99, max; heavy
//	          p50; throughput. A wait not over by -max-wait counts as that
//	          long and its figure is printed as a lower bound (">").
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

type opts struct {
	url                         string
	jobs, memJobs, heavy, small int
	smallJobs, backlog, quiet   int
	quietRate, handlerMs        float64
	warmup, window, maxWait     time.Duration
}

type result map[string]any

func main() {
	var o opts
	libs := flag.String("libs", "echomq,asynq", "libraries, the first the base of the ratios")
	phases := flag.String("phases", "drain,mem,skew,overload", "phases to run")
	jsonOut := flag.String("json", "", "write the results here too")
	flag.StringVar(&o.url, "url", "", "server URL (required)")
	flag.IntVar(&o.jobs, "jobs", 20000, "jobs of the drain")
	flag.IntVar(&o.memJobs, "mem-jobs", 20000, "pending jobs of the memory phase")
	flag.IntVar(&o.heavy, "heavy", 10000, "skew: the heavy tenant's jobs")
	flag.IntVar(&o.small, "small", 99, "skew: small tenants")
	flag.IntVar(&o.smallJobs, "small-jobs", 10, "skew: jobs per small tenant")
	flag.IntVar(&o.backlog, "backlog", 20000, "overload: the heavy backlog held")
	flag.IntVar(&o.quiet, "quiet", 20, "overload: quiet tenants")
	flag.Float64Var(&o.quietRate, "quiet-rate", 400, "overload: quiet jobs/s in total")
	flag.Float64Var(&o.handlerMs, "handler-ms", 2, "overload: handler time")
	flag.DurationVar(&o.warmup, "warmup", 3*time.Second, "overload: warm-up")
	flag.DurationVar(&o.window, "window", 10*time.Second, "overload: measured window")
	flag.DurationVar(&o.maxWait, "max-wait", 30*time.Second, "overload: longest wait waited for")
	smoke := flag.Bool("smoke", false, "small sizes, correctness only")
	flag.Parse()
	if o.url == "" {
		fmt.Fprintln(os.Stderr, "gopeers: -url is required")
		os.Exit(2)
	}
	if *smoke {
		o.jobs, o.memJobs, o.heavy, o.small, o.smallJobs = 300, 300, 200, 9, 5
		o.backlog, o.quiet, o.quietRate = 400, 4, 100
		o.warmup, o.window, o.maxWait = 300*time.Millisecond, time.Second, 5*time.Second
	}
	addr := o.url[strings.Index(o.url, "://")+3:]
	srv := redis.NewClient(&redis.Options{Addr: addr})
	defer srv.Close()
	names := strings.Split(*libs, ",")
	results := map[string]result{}
	for _, name := range names {
		if _, ok := labels[name]; !ok {
			fail(fmt.Errorf("unknown library %q", name))
		}
		results[name] = result{"label": labels[name]}
		for _, ph := range strings.Split(*phases, ",") {
			fmt.Fprintf(os.Stderr, "  %s: %s ...\n", name, ph)
			var r result
			switch ph {
			case "drain":
				r = drain(name, srv, o)
			case "mem":
				r = mem(name, srv, o)
			case "skew":
				r = skew(name, srv, o)
			case "overload":
				r = overload(name, srv, o)
			default:
				fail(fmt.Errorf("unknown phase %q", ph))
			}
			b, _ := json.Marshal(r)
			fmt.Fprintf(os.Stderr, "    %s\n", b)
			results[name][ph] = r
		}
	}
	fmt.Printf("\nGo peers: concurrency 8 each; drain of %d no-op jobs; memory of %d pending 100-byte jobs; "+
		"skew %d + %d x %d; overload: backlog %d, %d quiet tenants at %g/s, %g ms handlers, waits in ms "+
		"over a %v window after %v\n", o.jobs, o.memJobs, o.heavy, o.small, o.smallJobs, o.backlog, o.quiet,
		o.quietRate, o.handlerMs, o.window, o.warmup)
	fmt.Println("x = EchoMQ Go Worker's figure over the row's (drain: >= 3 wanted; CPU: <= 0.3; quiet p99: <= 0.01)")
	printTable(results, names)
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(results, "", " ")
		if err := os.WriteFile(*jsonOut, b, 0o644); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gopeers:", err)
	os.Exit(1)
}

func must(l lib, err error) lib {
	if err != nil {
		fail(err)
	}
	return l
}

func flush(srv *redis.Client) {
	if err := srv.FlushAll(context.Background()).Err(); err != nil {
		fail(err)
	}
}

// waitFor waits until n records are in; fails when none came for a minute.
func waitFor(rec *recorder, n int) {
	last, seen := time.Now(), rec.count()
	for c := rec.count(); c < n; c = rec.count() {
		time.Sleep(5 * time.Millisecond)
		if c != seen {
			last, seen = time.Now(), c
		}
		if time.Since(last) > time.Minute {
			fail(fmt.Errorf("no job started for a minute (%d of %d)", c, n))
		}
	}
}

// open flushes the server and opens library name on it.
func open(name string, srv *redis.Client, o opts) lib {
	flush(srv)
	return must(makeLib(name, o.url))
}

// put enqueues jobs or ends the run.
func put(l lib, jobs []job) {
	if err := l.enqueue(jobs); err != nil {
		fail(err)
	}
}

// startRecording starts l's workers, each job's start recorded in rec;
// returns the stop function, or ends the run.
func startRecording(l lib, rec *recorder) func() {
	stop, err := l.start(rec)
	if err != nil {
		fail(err)
	}
	return stop
}

// runAll enqueues jobs, starts the workers and waits until every job
// started; returns the records in arrival order.
func runAll(l lib, jobs []job) []record {
	put(l, jobs)
	rec := &recorder{}
	stop := startRecording(l, rec)
	waitFor(rec, len(jobs))
	stop()
	return rec.since(0)
}

// heavyStarts counts the heavy tenant's (p 0) records.
func heavyStarts(recs []record) int {
	n := 0
	for _, r := range recs {
		if r.p == 0 {
			n++
		}
	}
	return n
}

// overTenants is n jobs spread over 100 tenants in turn, each carrying pad.
func overTenants(n int, pad string) []job {
	jobs := make([]job, n)
	for i := range jobs {
		jobs[i] = job{p: i % 100, pad: pad}
	}
	return jobs
}

func drain(name string, srv *redis.Client, o opts) result {
	l := open(name, srv, o)
	defer l.close()
	pre := takeSnap(srv)
	put(l, overTenants(o.jobs, ""))
	rec := &recorder{}
	stop := startRecording(l, rec)
	waitFor(rec, o.jobs)
	post := takeSnap(srv)
	stop()
	recs := rec.since(0)
	first, last := recs[0].start, recs[0].start
	for _, r := range recs {
		first, last = min(first, r.start), max(last, r.start)
	}
	cpu, cmds, _ := delta(pre, post, o.jobs)
	return result{"jobs_per_s": float64(o.jobs-1) / math.Max(float64(last-first)/1e9, 1e-9),
		"cpu_us_per_job": cpu, "commands_per_job": cmds}
}

func mem(name string, srv *redis.Client, o opts) result {
	l := open(name, srv, o)
	defer l.close()
	pre := takeSnap(srv)
	put(l, overTenants(o.memJobs, strings.Repeat("x", 100)))
	post := takeSnap(srv)
	flush(srv)
	_, _, m := delta(pre, post, o.memJobs)
	return result{"bytes_per_job": m}
}

// interleave is the skewed arrival order of bench/compare: job j of
// producer p at (j + 0.5) / counts[p], ties by p.
func interleave(counts []int) []int {
	type slot struct {
		at float64
		p  int
	}
	var s []slot
	for p, n := range counts {
		for j := 0; j < n; j++ {
			s = append(s, slot{(float64(j) + 0.5) / float64(n), p})
		}
	}
	sort.Slice(s, func(a, b int) bool {
		if s[a].at != s[b].at {
			return s[a].at < s[b].at
		}
		return s[a].p < s[b].p
	})
	out := make([]int, len(s))
	for i, x := range s {
		out[i] = x.p
	}
	return out
}

func skew(name string, srv *redis.Client, o opts) result {
	counts := []int{o.heavy}
	for i := 0; i < o.small; i++ {
		counts = append(counts, o.smallJobs)
	}
	order := interleave(counts)
	l := open(name, srv, o)
	defer l.close()
	jobs := make([]job, len(order))
	for i, p := range order {
		jobs[i] = job{p: p}
	}
	recs := runAll(l, jobs)
	sort.SliceStable(recs, func(a, b int) bool { return recs[a].start < recs[b].start })
	last := map[int]int{}
	for i, r := range recs {
		last[r.p] = i + 1
	}
	small := make([]float64, 0, o.small)
	for p := 1; p <= o.small; p++ {
		small = append(small, float64(last[p]))
	}
	return result{"median": pct(small, 0.5), "max": pct(small, 1), "jobs": len(order)}
}

// pct is the q-quantile (nearest rank below) of xs.
func pct(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	v := append([]float64(nil), xs...)
	sort.Float64s(v)
	return v[min(len(v)-1, int(q*float64(len(v))))]
}

func overload(name string, srv *redis.Client, o opts) result {
	heavy := open(name, srv, o)
	quiet := must(makeLib(name, o.url))
	defer heavy.close()
	defer quiet.close()
	heavyJobs := func(k int) []job {
		t := time.Now().UnixNano()
		jobs := make([]job, k)
		for i := range jobs {
			jobs[i] = job{p: 0, enq: t, sleepMs: o.handlerMs}
		}
		return jobs
	}
	put(heavy, heavyJobs(o.backlog))
	rec := &recorder{}
	stopWorkers := startRecording(heavy, rec)
	// The run starts when the first job does (worker start-up left out).
	waitFor(rec, 1)
	wStart := time.Now().Add(o.warmup)
	wEnd := wStart.Add(o.window)
	var mu sync.Mutex
	sent := map[int64]bool{} // enqueue times of the quiet jobs sent in the window
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // quiet tenants, paced by the clock (a late send is caught up)
		defer wg.Done()
		t0 := time.Now()
		for k := 0; ; k++ {
			select {
			case <-stop:
				return
			default:
			}
			time.Sleep(time.Until(t0.Add(time.Duration(float64(k) / o.quietRate * 1e9))))
			t := time.Now()
			put(quiet, []job{{p: 1 + k%o.quiet, enq: t.UnixNano(), sleepMs: o.handlerMs}})
			if !t.Before(wStart) && t.Before(wEnd) {
				mu.Lock()
				sent[t.UnixNano()] = true
				mu.Unlock()
			}
		}
	}()
	enqueued, heavyStarted, seen := o.backlog, 0, 0
	var depths []float64
	deadline := wEnd.Add(o.maxWait)
	for {
		time.Sleep(10 * time.Millisecond)
		recs := rec.since(seen)
		seen += len(recs)
		heavyStarted += heavyStarts(recs)
		pending := enqueued - heavyStarted
		now := time.Now()
		if !now.Before(wStart) && now.Before(wEnd) {
			depths = append(depths, float64(pending))
		}
		if pending < o.backlog { // the heavy tenant sends as fast as it is drained
			put(heavy, heavyJobs(o.backlog-pending))
			enqueued += o.backlog - pending
		}
		if !now.Before(wEnd) {
			close(stop)
			wg.Wait()
			break
		}
	}
	started := func() int {
		n := 0
		for _, r := range rec.since(0) {
			if r.p > 0 && sent[r.enq] {
				n++
			}
		}
		return n
	}
	for started() < len(sent) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		// Keep the heavy backlog while the last quiet jobs wait.
		if k := o.backlog - (enqueued - heavyStarts(rec.since(0))); k > 0 {
			put(heavy, heavyJobs(k))
			enqueued += k
		}
	}
	stopWorkers()
	end := time.Now().UnixNano()
	recs := rec.since(0)
	waited := map[int64]float64{}
	var hw []float64
	inWindow := 0
	for _, r := range recs {
		if r.p > 0 && sent[r.enq] {
			waited[r.enq] = float64(r.start-r.enq) / 1e6
		}
		if r.start >= wStart.UnixNano() && r.start < wEnd.UnixNano() {
			inWindow++
			if r.p == 0 {
				hw = append(hw, float64(r.start-r.enq)/1e6)
			}
		}
	}
	var qw []float64
	bound, unstarted := math.Inf(1), 0
	for t := range sent {
		if w, ok := waited[t]; ok {
			qw = append(qw, w)
		} else {
			w := float64(end-t) / 1e6
			qw = append(qw, w)
			bound = math.Min(bound, w)
			unstarted++
		}
	}
	mean := 0.0
	for _, d := range depths {
		mean += d / float64(len(depths))
	}
	return result{"quiet_p50_ms": pct(qw, 0.5), "quiet_p99_ms": pct(qw, 0.99), "quiet_max_ms": pct(qw, 1),
		"quiet_jobs": len(sent), "quiet_unstarted": unstarted,
		"p50_lower_bound": pct(qw, 0.5) >= bound, "p99_lower_bound": pct(qw, 0.99) >= bound,
		"heavy_p50_ms": pct(hw, 0.5), "jobs_per_s": float64(inWindow) / o.window.Seconds(),
		"backlog_mean": mean}
}
