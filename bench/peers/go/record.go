package main

import (
	"sync"
	"time"
)

// record is one job's start: producer, enqueue and start times (Unix ns).
type record struct {
	p          int
	enq, start int64
}

// recorder collects the starts of every job, whatever the library.
type recorder struct {
	mu   sync.Mutex
	recs []record
}

func (r *recorder) started(p int, enq int64) {
	now := time.Now().UnixNano()
	r.mu.Lock()
	r.recs = append(r.recs, record{p, enq, now})
	r.mu.Unlock()
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.recs)
}

// since returns the records from index i on.
func (r *recorder) since(i int) []record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]record(nil), r.recs[i:]...)
}
