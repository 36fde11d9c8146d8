package echomq

import (
	"strconv"
	"time"

	"github.com/echomq/echomq/bindings/go/internal/capi"
)

// The C API takes times in milliseconds and checks their bounds; this
// package checks them first, so that a refusal speaks of the time.Duration
// the caller gave (a lease of -1s, not a lease_ms of -1000). The bounds are
// the header's (echomq/common.h), read through capi.

func msBound(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }

var (
	leaseMax       = msBound(capi.ECHOMQ_LEASE_MAX_MS)
	delayMax       = msBound(capi.ECHOMQ_DELAY_MAX_MS)
	dedupWindowMax = msBound(capi.ECHOMQ_DEDUP_WINDOW_MAX_MS)
	keepMax        = msBound(capi.ECHOMQ_KEEP_MAX_MS)
	ratePeriodMax  = msBound(capi.ECHOMQ_RATE_PERIOD_MAX_MS)
	waitMax        = msBound(int64(capi.ECHOMQ_WAIT_MAX_MS))
	targetWaitMax  = msBound(int64(capi.ECHOMQ_TARGET_WAIT_MAX_MS))
)

// durationMS is d in whole milliseconds (a part of one counts as one) when
// lo <= d <= hi, else ErrInvalid naming what and the range.
func durationMS(what string, d, lo, hi time.Duration) (int64, error) {
	if d < lo || d > hi {
		return 0, invalid(what + " must be " + lo.String() + ".." + hi.String() + ", got " + d.String())
	}
	return ceilMS(d), nil
}

// leaseMS checks a lease: 1ms..168h (7 days).
func leaseMS(d time.Duration) (int64, error) {
	return durationMS("lease", d, time.Millisecond, leaseMax)
}

// retryMS is the C retry delay of a retryIn: Backoff, RetryNow (0), or a
// delay of 0..366 days.
func retryMS(what string, d time.Duration) (int64, error) {
	switch d {
	case Backoff:
		return int64(capi.ECHOMQ_RETRY_BACKOFF), nil
	case RetryNow:
		return 0, nil
	}
	if d < 0 {
		return 0, invalid(what + " must be >= 0, Backoff or RetryNow, got " + d.String())
	}
	return durationMS(what, d, 0, delayMax)
}

func itoa(n int) string { return strconv.Itoa(n) }
