package echomq

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startReplica starts a second valkey-server (tests/valkey-server.sh) that
// replicates the test server until the test ends, and waits for its link.
func startReplica(t *testing.T) {
	t.Helper()
	script, err := filepath.Abs("../../../tests/valkey-server.sh")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "replica")
	out, err := exec.Command("bash", script, "start", dir).Output()
	if err != nil {
		t.Fatalf("cannot start the replica: %v", err)
	}
	t.Cleanup(func() { exec.Command("bash", script, "stop", dir).Run() })
	conn, err := net.Dial("tcp", strings.TrimPrefix(strings.TrimSpace(string(out)), "valkey://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	r := &raw{conn: conn, r: bufio.NewReader(conn)}
	host, port, _ := strings.Cut(serverAddr, ":")
	r.do(t, "REPLICAOF", host, port)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if info, _ := r.do(t, "INFO", "replication").(string); strings.Contains(info, "master_link_status:up") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the replica never synced")
		}
	}
}

func TestDurability(t *testing.T) {
	startReplica(t)
	ctx := ctxT(t)

	// One replica asked for, one there: confirmed, no error.
	q := newQueue(t, dial(t, WithDurability(1, false, 5*time.Second)))
	id, err := q.Enqueue(ctx, "g", []byte("x"))
	mustOK(t, err)
	j := must(q.Claim(ctx, time.Minute))(t)
	mustOK(t, j.Ack(ctx))

	// Two asked for: every write is done and says ErrUnconfirmed, with its result.
	q2 := dial(t, WithDurability(2, false, 50*time.Millisecond)).Queue(q.Name())
	id, err = q2.Enqueue(ctx, "g", []byte("y"))
	var e *Error
	if !errors.Is(err, ErrUnconfirmed) || !errors.As(err, &e) || !strings.Contains(e.Msg, "1 of 2 replicas") || id == 0 {
		t.Fatalf("enqueue: id %d, %v; want an id and ErrUnconfirmed", id, err)
	}
	if st := must(q2.Stats(ctx))(t); st.Pending != 1 { // reads never wait
		t.Fatalf("stats: %+v", st)
	}
	j, err = q2.Claim(ctx, time.Minute)
	if !errors.Is(err, ErrUnconfirmed) || j == nil || j.ID != id {
		t.Fatalf("claim: %v, %v", j, err)
	}
	if out, err := j.Fail(ctx, "again", RetryNow); !errors.Is(err, ErrUnconfirmed) || out != Retried {
		t.Fatalf("fail: %v, %v", out, err)
	}
	if _, err := q2.Claim(ctx, time.Minute); !errors.Is(err, ErrUnconfirmed) {
		t.Fatalf("claim again: %v", err)
	}
	if _, err := q2.Claim(ctx, time.Minute); !errors.Is(err, ErrEmpty) || errors.Is(err, ErrUnconfirmed) {
		t.Fatalf("claim of an empty queue never waits: %v", err)
	}

	// WAITAOF on a server without appendonly: refused by the server, the write done.
	q3 := dial(t, WithDurability(0, true, time.Second)).Queue(q.Name())
	if _, err := q3.Enqueue(ctx, "h", []byte("z")); !errors.Is(err, ErrUnconfirmed) || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("enqueue with WAITAOF: %v", err)
	}

	if _, err := Dial(ctx, serverURL, WithDurability(-1, false, 0)); !errors.Is(err, ErrInvalid) {
		t.Fatalf("bad durability: %v", err)
	}

	// The worker engine: unconfirmed round trips count as done.
	wq := newQueue(t, dial(t))
	for i := 0; i < 3; i++ {
		must(wq.Enqueue(ctx, "g", []byte("w")))(t)
	}
	w := &Worker{
		URL: serverURL, Queue: wq.Name(), Concurrency: 1, IdleTimeout: 500 * time.Millisecond,
		DialOptions: []DialOption{WithDurability(2, false, 20*time.Millisecond)},
		Handler:     func(context.Context, *Job) error { return nil },
	}
	mustOK(t, w.Run(ctx))
	if st := w.Stats(); st.Acked != 3 || st.Errors != 0 || st.Unconfirmed == 0 {
		t.Fatalf("worker stats: %+v", st)
	}
}
