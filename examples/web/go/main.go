// Command webreports is a net/http service that enqueues a task from a
// request and awaits its result, with a Worker in the same process (run
// more processes, or -worker=false ones, to scale either side).
//
//	ECHOMQ_URL=valkey://127.0.0.1:6379 go run . -addr 127.0.0.1:8000
//	curl -X POST localhost:8000/reports -d '{"tenant": "acme", "rows": [3, 4]}'
//	{"job":1,"tenant":"acme","total":7}
//
// POST /reports enqueues one "report" job on the tenant's lane (tenants are
// served fairly, one lane each) and waits for its result up to ?wait=
// seconds (default 10): 200 with the result, 202 with the job id if it is
// not done by then (GET /reports/{id} looks again), 422 when the job
// failed, 400 on a bad request. SIGINT or SIGTERM drains and stops.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"log"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/echomq/echomq/bindings/go/echomq"
)

const queueName = "reports"

type request struct {
	Tenant string    `json:"tenant"`
	Rows   []float64 `json:"rows"`
}

type result struct {
	Tenant string  `json:"tenant"`
	Total  float64 `json:"total"`
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8000", "HTTP address")
	worker := flag.Bool("worker", true, "run the tasks in this process too")
	flag.Parse()
	url := os.Getenv("ECHOMQ_URL")
	if url == "" {
		url = "valkey://127.0.0.1:6379"
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	client, err := echomq.Dial(ctx, url)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	q := client.Queue(queueName)

	done := make(chan error, 1)
	if *worker {
		mux := echomq.NewMux()
		echomq.HandleJSON(mux, "report", func(ctx context.Context, j *echomq.Job, r request) error {
			if len(r.Rows) == 0 {
				return echomq.Discard(errors.New("no rows")) // no retry can fix it
			}
			total := 0.0 // a real report would query, render, upload...
			for _, v := range r.Rows {
				total += v
			}
			j.SetResultValue(result{Tenant: r.Tenant, Total: total})
			return nil
		})
		w := &echomq.Worker{URL: url, Queue: queueName, Handler: mux.ProcessJob, Concurrency: 8}
		go func() { done <- w.Run(ctx) }()
	} else {
		close(done)
	}

	http.HandleFunc("POST /reports", func(rw http.ResponseWriter, req *http.Request) {
		var r request
		wait, werr := waitOf(req)
		if err := json.NewDecoder(req.Body).Decode(&r); err != nil || r.Tenant == "" || r.Rows == nil || werr != nil {
			reply(rw, http.StatusBadRequest, map[string]any{"error": `send {"tenant": "...", "rows": [...]}, and ?wait=0..60`})
			return
		}
		id, err := echomq.EnqueueJSON(req.Context(), q, "report", r.Tenant, r,
			echomq.WithMaxAttempts(3), echomq.WithKeep(time.Hour, 0))
		if err != nil {
			reply(rw, http.StatusServiceUnavailable, map[string]any{"error": err.Error()})
			return
		}
		outcome(rw, req, q, id, wait)
	})
	http.HandleFunc("GET /reports/{id}", func(rw http.ResponseWriter, req *http.Request) {
		id, err := strconv.ParseUint(req.PathValue("id"), 10, 64)
		if err != nil {
			reply(rw, http.StatusBadRequest, map[string]any{"error": "a job id is a number"})
			return
		}
		outcome(rw, req, q, id, 0)
	})
	srv := &http.Server{Addr: *addr, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	log.Printf("listening on %s", *addr)
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		log.Fatal(err)
	}
}

// waitOf reads ?wait= (seconds, 0..60; default 10).
func waitOf(req *http.Request) (time.Duration, error) {
	s := req.URL.Query().Get("wait")
	if s == "" {
		return 10 * time.Second, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f > 60 {
		return 0, errors.New("wait: 0..60 seconds")
	}
	return time.Duration(f * float64(time.Second)), nil
}

// outcome waits for job id (the request's context cancels the wait) and
// replies with its result (200), not yet (202), its failure (422) or an
// unknown id (404).
func outcome(rw http.ResponseWriter, req *http.Request, q *echomq.Queue, id uint64, wait time.Duration) {
	job, err := q.Wait(req.Context(), id, wait)
	switch {
	case errors.Is(err, echomq.ErrPending):
		reply(rw, http.StatusAccepted, map[string]any{"job": id, "state": "pending"})
	case errors.Is(err, echomq.ErrNotFound):
		reply(rw, http.StatusNotFound, map[string]any{"job": id, "error": "no such job (or its result expired)"})
	case err != nil:
		reply(rw, http.StatusServiceUnavailable, map[string]any{"job": id, "error": err.Error()})
	case job.State != echomq.StateCompleted:
		reply(rw, http.StatusUnprocessableEntity, map[string]any{"job": id, "error": job.LastError})
	default:
		r, err := echomq.ResultJSON[result](job)
		if err != nil {
			reply(rw, http.StatusInternalServerError, map[string]any{"job": id, "error": err.Error()})
			return
		}
		reply(rw, http.StatusOK, map[string]any{"job": id, "tenant": r.Tenant, "total": r.Total})
	}
}

func reply(rw http.ResponseWriter, status int, v any) {
	rw.Header().Set("Content-Type", "application/json")
	rw.WriteHeader(status)
	_ = json.NewEncoder(rw).Encode(v)
}
