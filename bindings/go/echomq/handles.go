package echomq

import (
	"sync/atomic"
	"time"

	"github.com/echomq/echomq/bindings/go/internal/capi"
)

// Every C handle this package takes is converted to Go values and freed
// before the call that took it returns (clients excepted: they live until
// Close). live counts the handles still held, so the tests can check that
// every path frees what it took.
var live liveHandles

type liveHandles struct {
	clients, jobs, lists, batches, lanes, reports, workers atomic.Int64
}

func (l *liveHandles) add(n *atomic.Int64, d int64) { n.Add(d) }

// total is the number of C handles not yet freed.
func (l *liveHandles) total() int64 {
	return l.clients.Load() + l.jobs.Load() + l.lists.Load() + l.batches.Load() +
		l.lanes.Load() + l.reports.Load() + l.workers.Load()
}

// jobFromHandle copies a C job into a Go Job; it does not free the handle.
func jobFromHandle(q *Queue, j capi.Job) *Job {
	var n [jobNums]int64
	capi.Job_numbers(j, n[:])
	payload := make([]byte, n[6])
	if len(payload) > 0 {
		capi.Job_payload_copy(j, payload)
	}
	return &Job{
		ID:            uint64(n[0]),
		Group:         capi.Job_group(j),
		Payload:       payload,
		Token:         uint64(n[1]),
		MaxAttempts:   uint32(n[2]),
		LeaseUntil:    msTime(n[3]),
		EnqueuedAt:    msTime(n[4]),
		DeadAt:        msTime(n[5]),
		LastError:     capi.Job_last_error(j),
		Attempt:       uint32(n[7]),
		State:         JobState(n[8]),
		DueAt:         msTime(n[9]),
		StartedAt:     msTime(n[10]),
		FinishedAt:    msTime(n[11]),
		Progress:      outcomeBytes(j, 0, n[12]),
		Result:        outcomeBytes(j, 1, n[13]),
		ResultDropped: capi.Job_result_dropped(j),
		Name:          capi.Job_name(j),
		Headers:       jobHeaders(j),
		q:             q,
	}
}

// jobHeaders copies a C job's headers (nil when it has none).
func jobHeaders(j capi.Job) map[string]string {
	n := capi.Job_header_count(j)
	if n == 0 {
		return nil
	}
	h := make(map[string]string, n)
	for i := int64(0); i < n; i++ {
		h[capi.Job_header_key(j, i)] = capi.Job_header_value(j, i)
	}
	return h
}

// outcomeBytes copies a job's progress (what = 0) or result (1) of length n.
func outcomeBytes(j capi.Job, what int, n int64) []byte {
	if n == 0 {
		return nil
	}
	b := make([]byte, n)
	capi.Job_outcome_copy(j, what, b)
	return b
}

// takeJob copies and frees a job handle given by its address (0 = none).
func takeJob(q *Queue, addr uint64) *Job {
	if addr == 0 {
		return nil
	}
	live.add(&live.jobs, 1)
	j := capi.SwigcptrJob(uintptr(addr))
	job := jobFromHandle(q, j)
	capi.Job_free(j)
	live.add(&live.jobs, -1)
	return job
}

// takeJobList copies and frees a job list given by its address (0 = none).
func takeJobList(q *Queue, addr uint64) []*Job {
	if addr == 0 {
		return nil
	}
	live.add(&live.lists, 1)
	l := capi.SwigcptrJobList(uintptr(addr))
	n := capi.Job_list_count(l)
	jobs := make([]*Job, 0, n)
	for i := int64(0); i < n; i++ {
		jobs = append(jobs, jobFromHandle(q, capi.Job_list_at(l, i)))
	}
	capi.Job_list_free(l)
	live.add(&live.lists, -1)
	return jobs
}

// takeReport copies and frees a verify report given by its address.
func takeReport(addr uint64) []string {
	if addr == 0 {
		return nil
	}
	live.add(&live.reports, 1)
	r := capi.SwigcptrReport(uintptr(addr))
	n := capi.Report_count(r)
	lines := make([]string, 0, n)
	for i := int64(0); i < n; i++ {
		lines = append(lines, capi.Report_at(r, i))
	}
	capi.Report_free(r)
	live.add(&live.reports, -1)
	return lines
}

// takeLaneList copies and frees a lane list page; next is "" on the last page.
func takeLaneList(addr uint64) (lanes []LaneInfo, next string) {
	if addr == 0 {
		return nil, ""
	}
	live.add(&live.lanes, 1)
	l := capi.SwigcptrLaneList(uintptr(addr))
	n := capi.Lane_list_count(l)
	lanes = make([]LaneInfo, 0, n)
	var nums [laneNums]int64
	for i := int64(0); i < n; i++ {
		capi.Lane_list_numbers(l, i, nums[:])
		lanes = append(lanes, laneFromNumbers(capi.Lane_list_group(l, i), nums[:]))
	}
	next = capi.Lane_list_cursor(l)
	capi.Lane_list_free(l)
	live.add(&live.lanes, -1)
	return lanes, next
}

// msTime turns server milliseconds into a time; 0 stays the zero Time.
func msTime(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}
