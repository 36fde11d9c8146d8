package echomq

import (
	"errors"
	"strings"
	"testing"
)

// Doctor reports one line per check; the test server has no persistence
// and no replica, so those two warn, and the default user may do everything.
func TestDoctor(t *testing.T) {
	c := dial(t)
	q := newQueue(t, c)
	lines := must(q.Doctor(ctxT(t), ""))(t)
	want := []string{"version", "memory", "persistence", "replicas", "cluster", "acl"}
	if len(lines) != len(want) {
		t.Fatalf("doctor lines: %q", lines)
	}
	for i, l := range lines {
		level, rest, _ := strings.Cut(l, " ")
		if (level != "ok" && level != "warn" && level != "fail") || !strings.HasPrefix(rest, want[i]+":") {
			t.Errorf("line %d: %q", i, l)
		}
	}
	if !strings.HasPrefix(lines[2], "warn persistence: none") ||
		!strings.HasPrefix(lines[5], "ok acl: user 'default' may enqueue") {
		t.Errorf("doctor: %q", lines)
	}
	if _, err := c.Queue("bad{name}").Doctor(ctxT(t), ""); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad queue name: %v", err)
	}
}
