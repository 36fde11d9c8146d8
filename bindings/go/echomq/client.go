package echomq

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/echomq/echomq/bindings/go/internal/capi"
)

// Client is one connection to one Valkey server.
//
// A Client is safe for use by many goroutines: calls are serialised by a
// mutex, because the C handle is one connection that serves one call at a
// time. Goroutines that want to work in parallel should each Dial their own
// Client (the Worker does). Close may be called from any goroutine; it
// interrupts a blocking claim in progress.
type Client struct {
	mu  sync.Mutex  // serialises calls on the connection
	h   capi.Client // nil after Close; written under mu and cmu
	seq uint64      // blocking-claim counter, under mu

	cmu      sync.Mutex // guards h and blocking for cancel, which runs outside mu
	blocking uint64     // id of the blocking claim in progress, 0 if none
}

type dialConfig struct {
	connectTimeout time.Duration
	commandTimeout time.Duration
	maxPayload     int
	waitReplicas   int
	waitAOF        bool
	waitTimeout    time.Duration
}

// DialOption configures Dial.
type DialOption func(*dialConfig)

// WithConnectTimeout bounds the TCP or unix-socket connect (default 2 s).
func WithConnectTimeout(d time.Duration) DialOption {
	return func(c *dialConfig) { c.connectTimeout = d }
}

// WithCommandTimeout bounds the wait for the reply of a non-blocking call
// (default 5 s). A blocking claim waits longer, as its context allows.
func WithCommandTimeout(d time.Duration) DialOption {
	return func(c *dialConfig) { c.commandTimeout = d }
}

// WithMaxPayload sets the largest payload this client enqueues, in bytes
// (default 1 MiB, at most 64 MiB).
func WithMaxPayload(n int) DialOption {
	return func(c *dialConfig) { c.maxPayload = n }
}

// WithDurability makes every call that writes wait until the server
// confirms the write reached `replicas` replicas (WAIT) and, with aof, its
// own append-only file (WAITAOF; needs appendonly yes), for at most timeout
// (default 1 s when 0). A write not confirmed in time still happened: the
// call returns its results together with an error matching ErrUnconfirmed.
// Reads and claims that find nothing never wait. Default: no waiting.
func WithDurability(replicas int, aof bool, timeout time.Duration) DialOption {
	return func(c *dialConfig) {
		c.waitReplicas, c.waitAOF = replicas, aof
		if timeout != 0 {
			c.waitTimeout = timeout
		}
	}
}

// Dial connects to the server at url:
//
//	valkey://[user[:password]@]host[:port][/db]   (also redis://)
//	unix://[user[:password]@]/path/to/socket[?db=N]
//
// It authenticates, selects the database and loads the scripts. The connect
// is bounded by WithConnectTimeout.
func Dial(ctx context.Context, url string, opts ...DialOption) (*Client, error) {
	cfg := dialConfig{
		connectTimeout: 2 * time.Second,
		commandTimeout: 5 * time.Second,
		maxPayload:     defaultMaxPayload,
		waitTimeout:    time.Second,
	}
	for _, o := range opts {
		o(&cfg)
	}
	if err := libraryVersionOK(); err != nil {
		return nil, err
	}
	if hasNUL(url) {
		return nil, invalid("URL contains a NUL byte")
	}
	aof := 0
	if cfg.waitAOF {
		aof = 1
	}
	var ms [3]int64
	for i, t := range []struct {
		what   string
		d, max time.Duration
	}{{"WithConnectTimeout: the timeout", cfg.connectTimeout, int32Max},
		{"WithCommandTimeout: the timeout", cfg.commandTimeout, int32Max},
		{"WithDurability: the wait", cfg.waitTimeout, msBound(int64(capi.ECHOMQ_WAIT_TIMEOUT_MAX_MS))}} {
		var err error
		if ms[i], err = durationMS(t.what, t.d, time.Millisecond, t.max); err != nil {
			return nil, err
		}
	}
	h := capi.Client_create(int(ms[0]), int(ms[1]), int64(cfg.maxPayload), cfg.waitReplicas, aof, int(ms[2]))
	if h == nil || h.Swigcptr() == 0 {
		return nil, invalid("bad client options (timeouts must be >= 1 ms, max payload 1..64 MiB, " +
			"durability: 0..100 replicas, a wait of 1 ms..60 s)")
	}
	c := &Client{h: h}
	runtime.SetFinalizer(c, (*Client).Close)
	live.add(&live.clients, 1)
	if _, err := c.do(ctx, func(h capi.Client) int { return capi.Client_connect(h, url) }); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Close closes the connection and frees the handle. A blocking claim in
// progress on another goroutine is interrupted (it fails with ErrCanceled,
// having claimed nothing); any other call in progress finishes first (it is
// bounded by the command timeout). Calls after Close return ErrClosed.
// Close is idempotent.
func (c *Client) Close() error {
	c.cmu.Lock()
	if c.h != nil && c.blocking != 0 {
		capi.Client_cancel(c.h)
	}
	c.cmu.Unlock()

	c.mu.Lock()
	defer c.mu.Unlock()
	if c.h == nil {
		return nil
	}
	c.cmu.Lock()
	h := c.h
	c.h = nil
	c.cmu.Unlock()
	capi.Client_free(h)
	live.add(&live.clients, -1)
	runtime.SetFinalizer(c, nil)
	return nil
}

// Ping sends PING and waits for the answer.
func (c *Client) Ping(ctx context.Context) error {
	_, err := c.do(ctx, func(h capi.Client) int { return capi.Client_ping(h) })
	return err
}

// Queue returns a handle on the named queue. It does no I/O; a bad name is
// reported (ErrInvalid) by the first call that uses it.
func (c *Client) Queue(name string) *Queue {
	return &Queue{c: c, name: name}
}

// do runs one C call on the connection, holding the client mutex. The
// context is checked before the call; the call itself is short (the C
// library bounds it by the command timeout) and runs to completion. fn
// returns a status; a negative status becomes an *Error carrying the
// client's message. Positive statuses (ECHOMQ_EMPTY) are returned as they are,
// but ECHOMQ_UNCONFIRMED also comes with an error (ErrUnconfirmed) that the
// caller returns beside its results (see failed).
func failed(err error) bool { return err != nil && !errors.Is(err, ErrUnconfirmed) }

// do runs one C call: see run. Positive statuses (ECHOMQ_EMPTY) are
// returned as they are.
func (c *Client) do(ctx context.Context, fn func(h capi.Client) int) (int, error) {
	return c.run(ctx, false, fn)
}

// doBlocking runs a blocking claim: like do, but while it waits the end of
// ctx interrupts it through echomq_client_cancel.
func (c *Client) doBlocking(ctx context.Context, fn func(h capi.Client) int) (int, error) {
	return c.run(ctx, true, fn)
}

func (c *Client) run(ctx context.Context, blocking bool, fn func(h capi.Client) int) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if c == nil { // the queue of a job handed out by a Worker: settled through the engine
		return 0, ErrClosed
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	h := c.h
	if h == nil {
		return 0, ErrClosed
	}
	var stop func() bool
	if blocking {
		c.seq++
		id := c.seq
		c.cmu.Lock()
		c.blocking = id
		c.cmu.Unlock()
		if ctx.Done() != nil {
			stop = context.AfterFunc(ctx, func() { c.cancelWait(id) })
		}
	}

	rc := fn(h)

	if blocking {
		if stop != nil {
			stop()
		}
		// A cancel still running holds cmu: waiting for it here guarantees
		// it cannot land on a later call.
		c.cmu.Lock()
		c.blocking = 0
		c.cmu.Unlock()
	}
	if rc == int(CodeUnconfirmed) { // done: the caller keeps its results and returns this too
		return rc, &Error{Code: CodeUnconfirmed, Msg: capi.Client_errmsg(h)}
	}
	if rc >= 0 {
		return rc, nil
	}
	e := &Error{Code: Code(rc), Msg: capi.Client_errmsg(h)}
	if e.Code == CodeCanceled && ctx.Err() != nil {
		return rc, &ctxError{ctx: ctx.Err(), c: e}
	}
	return rc, e
}

// cancelWait interrupts blocking call id if it is still the one in progress.
func (c *Client) cancelWait(id uint64) {
	c.cmu.Lock()
	defer c.cmu.Unlock()
	if c.h != nil && c.blocking == id {
		capi.Client_cancel(c.h)
	}
}

// libraryVersionOK refuses a shared libechomq whose version cannot serve
// the header this package was generated from: another major version, or
// before 1.0 another minor one.
var libraryVersionOK = sync.OnceValue(func() error {
	lib := capi.Version()
	major, minor := lib/10000, lib/100%100
	if int(major) != capi.ECHOMQ_VERSION_MAJOR || (major == 0 && int(minor) != capi.ECHOMQ_VERSION_MINOR) {
		return &Error{Code: CodeInvalid, Msg: "libechomq " + capi.Version_string() +
			" does not match the header of this package (" + strconv.Itoa(capi.ECHOMQ_VERSION_MAJOR) +
			"." + strconv.Itoa(capi.ECHOMQ_VERSION_MINOR) + ".x)"}
	}
	return nil
})

// ceilMS converts d to whole milliseconds, rounding a positive remainder
// up so that a sub-millisecond duration does not become 0 ("none").
func ceilMS(d time.Duration) int64 {
	ms := d.Milliseconds()
	if d > 0 && time.Duration(ms)*time.Millisecond < d {
		ms++
	}
	return ms
}

// hasNUL reports whether s holds a NUL byte, which a C string cannot carry:
// such names are refused here rather than silently cut short in C.
func hasNUL(s string) bool { return strings.IndexByte(s, 0) >= 0 }

func invalid(msg string) error { return &Error{Code: CodeInvalid, Msg: msg} }

const defaultMaxPayload = 1024 * 1024
