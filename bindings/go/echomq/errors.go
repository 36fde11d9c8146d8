package echomq

import (
	"errors"
	"fmt"
)

// Code is a status code of the C API (echomq_status). The numbers are the
// C ones and are never renumbered.
type Code int

// Status codes, as in echomq.h.
const (
	CodeOK    Code = 0
	CodeEmpty Code = 1 // nothing to claim right now
	// CodeUnconfirmed: done, but not confirmed durable in time (WithDurability).
	CodeUnconfirmed Code = 2
	CodeInvalid     Code = -1  // invalid argument: name, number, option, URL
	CodeTooLarge    Code = -2  // payload or batch over the limit
	CodeNotFound    Code = -3  // no such job
	CodeStale       Code = -4  // the token is not the current delivery's: lease lost
	CodeFull        Code = -5  // the lane is at its size cap: the enqueue wrote nothing
	CodeLayout      Code = -6  // the queue was written with another key layout (older EchoMQ)
	CodeLeased      Code = -7  // the job is leased by a worker now: refused, nothing changed
	CodeShards      Code = -8  // sharded with another count, or a plain queue in use: nothing changed
	CodeDepends     Code = -16 // delete refused: the job is part of a flow that has not finished
	CodeDuplicate   Code = 3   // enqueue: the idempotency key was seen; the first job's id is returned
	CodePending     Code = 4   // Wait: the job had not finished when the wait ran out
	// CodeWillRetry and CodeWillDie say what becomes of a job a Worker
	// reported failed (the engine's report outcomes; not errors): retried,
	// or dead-lettered. The Worker's hooks and log follow them.
	CodeWillRetry Code = 5
	CodeWillDie   Code = 6
	// CodeWasCanceled: a settlement of a job canceled while it was leased
	// (Queue.Cancel): it settled as canceled whatever was reported.
	CodeWasCanceled Code = 7
	CodeFinished    Code = -9  // Cancel: the job has finished, nothing to cancel
	CodeTimeLimit   Code = -14 // an extension past the attempt's time limit: refused
	CodeConn        Code = -10 // cannot connect, or connection lost before sending
	CodeTimeout     Code = -11 // no reply in time: outcome unknown
	CodeCanceled    Code = -12 // a blocking claim interrupted by cancellation: nothing claimed
	CodeTLS         Code = -13 // TLS refused: handshake, untrusted certificate, name mismatch; nothing ran
	CodeServer      Code = -20 // the server answered with an error
	CodeNoPerm      Code = -21 // authentication failed or ACL denied
	CodeProto       Code = -22 // unexpected reply shape
	CodeBusy        Code = -23 // server busy running a script (retryable)
	CodeLoading     Code = -24 // server loading its dataset (retryable)
	CodeTryAgain    Code = -25 // cluster slot in migration (retryable)
	CodeOOM         Code = -26 // server out of memory: nothing written (retryable)
	CodeNoMem       Code = -30 // allocation failed
	CodeInternal    Code = -31 // a bug in libechomq
)

var codeNames = map[Code]string{
	CodeOK:          "ok",
	CodeEmpty:       "empty",
	CodeUnconfirmed: "done, but not confirmed durable in time",
	CodeInvalid:     "invalid argument",
	CodeTooLarge:    "too large",
	CodeNotFound:    "not found",
	CodeStale:       "stale lease",
	CodeFull:        "lane is full",
	CodeLayout:      "key layout mismatch",
	CodeLeased:      "job is leased",
	CodeShards:      "shard count mismatch",
	CodeDepends:     "job is part of an unfinished flow",
	CodeDuplicate:   "duplicate",
	CodePending:     "not finished when the wait ran out",
	CodeWillRetry:   "will be retried",
	CodeWillDie:     "will be dead-lettered",
	CodeWasCanceled: "the job was canceled",
	CodeFinished:    "the job has finished",
	CodeTimeLimit:   "past its time limit",
	CodeConn:        "connection error",
	CodeTimeout:     "timeout",
	CodeCanceled:    "canceled",
	CodeTLS:         "TLS refused",
	CodeServer:      "server error",
	CodeNoPerm:      "permission denied",
	CodeProto:       "protocol error",
	CodeBusy:        "server busy",
	CodeLoading:     "server loading",
	CodeTryAgain:    "slot in migration, try again",
	CodeOOM:         "server out of memory",
	CodeNoMem:       "out of memory",
	CodeInternal:    "internal error",
}

// String names the code.
func (c Code) String() string {
	if s, ok := codeNames[c]; ok {
		return s
	}
	return fmt.Sprintf("status %d", int(c))
}

// Error is a failure reported by libechomq: the status code and the
// message the C client kept for the call. Match it with errors.Is against
// the sentinels below (ErrStaleLease, ErrInvalid, ...), or with errors.As
// to read the code and message.
type Error struct {
	Code Code
	Msg  string
}

func (e *Error) Error() string {
	if e.Msg == "" {
		return "echomq: " + e.Code.String()
	}
	return "echomq: " + e.Code.String() + ": " + e.Msg
}

// Is reports whether target is an *Error with the same code, so that
// errors.Is(err, ErrStaleLease) holds for every stale-lease failure
// whatever its message.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Sentinel errors, one per status code, for errors.Is.
var (
	// ErrEmpty: nothing to claim right now. Claim, WClaim and AckClaim
	// return it instead of a nil job, so a forgotten check fails loudly
	// rather than dereferencing nil (as database/sql does with ErrNoRows).
	ErrEmpty = &Error{Code: CodeEmpty}
	// ErrUnconfirmed: the call did what it says (every other result it
	// returns alongside is valid: the id, the job, the outcome), but the
	// server did not confirm in time that the write reached the replicas or
	// the AOF asked for with WithDurability; a failover now could lose it.
	// Never retry the call because of it (an enqueue would run twice).
	ErrUnconfirmed = &Error{Code: CodeUnconfirmed}
	ErrInvalid     = &Error{Code: CodeInvalid}
	ErrTooLarge    = &Error{Code: CodeTooLarge}
	ErrNotFound    = &Error{Code: CodeNotFound}
	ErrStaleLease  = &Error{Code: CodeStale}
	// ErrLayout: the queue's keys were written with another key layout
	// (an older EchoMQ); refused, nothing written. See docs/keys.md.
	ErrLayout = &Error{Code: CodeLayout}
	// ErrLeased: Delete refused a job a worker holds now; nothing changed.
	ErrLeased = &Error{Code: CodeLeased}
	// ErrShards: CreateSharded found the queue sharded with another count,
	// or a plain queue that holds jobs or lane settings; nothing changed.
	ErrShards = &Error{Code: CodeShards}
	// ErrFlow: Delete refused a job of a flow that has not finished (a
	// parent waits for it, or it waits for its children); nothing changed.
	// Queue.DeleteFlow deletes the flow whole.
	ErrFlow = &Error{Code: CodeDepends}
	// ErrFull: the lane is at its size cap; the enqueue (a batch: all of it)
	// wrote nothing.
	ErrFull       = &Error{Code: CodeFull}
	ErrConnection = &Error{Code: CodeConn}
	ErrTimeout    = &Error{Code: CodeTimeout}
	ErrCanceled   = &Error{Code: CodeCanceled}
	// ErrPending: Wait ran out of time before the job completed or died
	// (it still lives; nothing is unknown).
	ErrPending = &Error{Code: CodePending}
	// ErrTLS: the TLS session was refused (a failed handshake, a server
	// certificate that is not trusted or not for the host, a client
	// certificate the server wants); the message gives OpenSSL's reason. No
	// command ran.
	ErrTLS      = &Error{Code: CodeTLS}
	ErrServer   = &Error{Code: CodeServer}
	ErrNoPerm   = &Error{Code: CodeNoPerm}
	ErrProtocol = &Error{Code: CodeProto}
	// ErrBusy, ErrLoading, ErrTryAgain and ErrServerOOM are retryable
	// refusals: the call changed nothing (see IsRetryable).
	ErrBusy      = &Error{Code: CodeBusy}
	ErrLoading   = &Error{Code: CodeLoading}
	ErrTryAgain  = &Error{Code: CodeTryAgain}
	ErrServerOOM = &Error{Code: CodeOOM}
	ErrNoMem     = &Error{Code: CodeNoMem}
	// ErrFinished: Cancel of a job that has finished (completed, or dead
	// for another reason); nothing changed.
	ErrFinished = &Error{Code: CodeFinished}
	// ErrTimeLimit: an extension refused, the attempt ran past its time limit.
	ErrTimeLimit = &Error{Code: CodeTimeLimit}
	ErrInternal  = &Error{Code: CodeInternal}
)

// Retryable reports whether the server refused the call before doing
// anything (busy, loading, slot in migration, out of memory), so the same
// call may succeed a little later.
func (e *Error) Retryable() bool {
	switch e.Code {
	case CodeBusy, CodeLoading, CodeTryAgain, CodeOOM:
		return true
	}
	return false
}

// IsRetryable reports whether err is (or wraps) a retryable *Error.
func IsRetryable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Retryable()
}

// ErrClosed is returned by every call on a Client after Close.
var ErrClosed = errors.New("echomq: client is closed")

// ctxError is a call interrupted because its context ended: it matches
// both the context's error (context.Canceled, context.DeadlineExceeded)
// and ErrCanceled, and keeps the C message.
type ctxError struct {
	ctx error
	c   *Error
}

func (e *ctxError) Error() string   { return e.c.Error() + " (" + e.ctx.Error() + ")" }
func (e *ctxError) Unwrap() []error { return []error{e.ctx, e.c} }
