package echomq

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// The tests run against a real valkey-server, started here with the
// repository's tests/valkey-server.sh and always stopped: by TestMain, and
// by a watchdog process should the test binary die before (panic, timeout).

var (
	serverURL  string
	serverAddr string // host:port, for the raw RESP connection below
)

func TestMain(m *testing.M) {
	os.Exit(runWithServer(m))
}

func runWithServer(m *testing.M) int {
	script, err := filepath.Abs("../../../tests/valkey-server.sh")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	dir, err := os.MkdirTemp("", "emq-go-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer os.RemoveAll(dir)
	dir = filepath.Join(dir, "server")
	out, err := exec.Command("bash", script, "start", dir).Output()
	if err != nil {
		fmt.Fprintf(os.Stderr, "cannot start valkey-server: %v\n", err)
		return 2
	}
	defer exec.Command("bash", script, "stop", dir).Run()
	startWatchdog(script, filepath.Dir(dir), dir)

	serverURL = strings.TrimSpace(string(out))
	serverAddr = strings.TrimPrefix(serverURL, "valkey://")
	return m.Run()
}

// startWatchdog stops the server once this process is gone, whatever way
// it ends. It runs in its own session so that it outlives the test binary.
func startWatchdog(script, parent, dir string) {
	sh := fmt.Sprintf("while kill -0 %d 2>/dev/null; do sleep 0.5; done; bash %q stop %q; rm -rf %q",
		os.Getpid(), script, dir, parent)
	cmd := exec.Command("sh", "-c", sh)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err == nil {
		go cmd.Wait()
	}
}

// dial returns a client closed at the end of the test.
func dial(t testing.TB, opts ...DialOption) *Client {
	t.Helper()
	c, err := Dial(context.Background(), serverURL, opts...)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

var queueSeq atomic.Int64

// newQueue returns a queue with a name unique to the test; at the end of
// the test it asserts that Verify reports no violation.
func newQueue(t testing.TB, c *Client) *Queue {
	t.Helper()
	name := strings.NewReplacer("/", ".", " ", "_", "#", "_").Replace(t.Name())
	name = fmt.Sprintf("go.%s.%d", name, queueSeq.Add(1))
	if len(name) > 128 {
		name = name[len(name)-128:]
	}
	q := c.Queue(name)
	t.Cleanup(func() { assertVerified(t, q) })
	return q
}

func assertVerified(t testing.TB, q *Queue) {
	t.Helper()
	c, err := Dial(context.Background(), serverURL)
	if err != nil {
		t.Errorf("verify: Dial: %v", err)
		return
	}
	defer c.Close()
	report, err := c.Queue(q.Name()).Verify(context.Background())
	if err != nil {
		t.Errorf("Verify: %v", err)
		return
	}
	for _, line := range report {
		t.Errorf("Verify violation: %s", line)
	}
}

// must(call())(t) returns the value of a (value, error) call, failing the
// test on an error.
func must[T any](v T, err error) func(testing.TB) T {
	return func(t testing.TB) T {
		t.Helper()
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return v
	}
}

func mustOK(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// raw is a minimal RESP2 connection used only to look at the keyspace from
// outside the library (the library under test must not grade itself).
type raw struct {
	conn net.Conn
	r    *bufio.Reader
}

func dialRaw(t testing.TB) *raw {
	t.Helper()
	conn, err := net.Dial("tcp", serverAddr)
	if err != nil {
		t.Fatalf("raw dial: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	return &raw{conn: conn, r: bufio.NewReader(conn)}
}

func (r *raw) do(t testing.TB, args ...string) any {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := r.conn.Write([]byte(b.String())); err != nil {
		t.Fatalf("raw write: %v", err)
	}
	v, err := r.read()
	if err != nil {
		t.Fatalf("raw %v: %v", args, err)
	}
	return v
}

func (r *raw) read() (any, error) {
	line, err := r.r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return nil, errors.New("empty reply line")
	}
	switch line[0] {
	case '+':
		return line[1:], nil
	case '-':
		return nil, errors.New(line[1:])
	case ':':
		return strconv.ParseInt(line[1:], 10, 64)
	case '$':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return nil, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r.r, buf); err != nil {
			return nil, err
		}
		return string(buf[:n]), nil
	case '*':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return nil, nil
		}
		arr := make([]any, n)
		for i := range arr {
			if arr[i], err = r.read(); err != nil {
				return nil, err
			}
		}
		return arr, nil
	}
	return nil, fmt.Errorf("bad reply %q", line)
}

// keyspace snapshots every key of the database with its type and value. A
// hash table is walked (and DUMPed) in bucket order, which a read may move
// by a rehash step, so hashes and sets are sorted.
func keyspace(t testing.TB, r *raw) map[string]string {
	t.Helper()
	keys, _ := r.do(t, "KEYS", "*").([]any)
	snap := make(map[string]string, len(keys))
	for _, k := range keys {
		key := k.(string)
		kind, _ := r.do(t, "TYPE", key).(string)
		var items []string
		sorted := true
		switch kind {
		case "string":
			v, _ := r.do(t, "GET", key).(string)
			items = []string{v}
		case "hash":
			flat, _ := r.do(t, "HGETALL", key).([]any)
			for i := 0; i+1 < len(flat); i += 2 {
				f, _ := flat[i].(string)
				v, _ := flat[i+1].(string)
				items = append(items, strconv.Itoa(len(f))+":"+f+"="+v)
			}
		case "set":
			for _, m := range r.do(t, "SMEMBERS", key).([]any) {
				items = append(items, m.(string))
			}
		case "zset", "list":
			cmd := []string{"LRANGE", key, "0", "-1"}
			if kind == "zset" {
				cmd = []string{"ZRANGE", key, "0", "-1", "WITHSCORES"}
			}
			for _, m := range r.do(t, cmd...).([]any) {
				items = append(items, m.(string))
			}
			sorted = false
		default:
			v, _ := r.do(t, "DUMP", key).(string)
			items = []string{v}
		}
		if sorted {
			sort.Strings(items)
		}
		var b strings.Builder
		b.WriteString(kind + "|")
		for _, it := range items {
			b.WriteString(strconv.Itoa(len(it)) + "|" + it)
		}
		snap[key] = b.String()
	}
	return snap
}
