package echomq

import (
	"bytes"
	"errors"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/echomq/echomq/bindings/go/internal/capi"
)

// The Go codes are the C ones, number for number.
func TestCodesMatchC(t *testing.T) {
	pairs := map[Code]int{
		CodeOK: capi.ECHOMQ_OK, CodeEmpty: capi.ECHOMQ_EMPTY, CodeUnconfirmed: capi.ECHOMQ_UNCONFIRMED, CodeInvalid: capi.ECHOMQ_EINVAL,
		CodeTooLarge: capi.ECHOMQ_ETOOLARGE, CodeNotFound: capi.ECHOMQ_ENOTFOUND,
		CodeStale: capi.ECHOMQ_ESTALE, CodeLayout: capi.ECHOMQ_ELAYOUT, CodeFull: capi.ECHOMQ_EFULL, CodeConn: capi.ECHOMQ_ECONN,
		CodeLeased: capi.ECHOMQ_ELEASED, CodeDuplicate: capi.ECHOMQ_DUPLICATE, CodeShards: capi.ECHOMQ_ESHARDS, CodeDepends: capi.ECHOMQ_EDEPENDS,
		CodePending: capi.ECHOMQ_PENDING, CodeWillRetry: capi.ECHOMQ_WILL_RETRY, CodeWillDie: capi.ECHOMQ_WILL_DIE,
		CodeTimeout:  capi.ECHOMQ_ETIMEOUT,
		CodeCanceled: capi.ECHOMQ_ECANCELED, CodeTLS: capi.ECHOMQ_ETLS, CodeServer: capi.ECHOMQ_ESERVER,
		CodeNoPerm: capi.ECHOMQ_ENOPERM, CodeProto: capi.ECHOMQ_EPROTO,
		CodeNoMem: capi.ECHOMQ_ENOMEM, CodeInternal: capi.ECHOMQ_EINTERNAL,
		CodeBusy: capi.ECHOMQ_EBUSY, CodeLoading: capi.ECHOMQ_ELOADING,
		CodeTryAgain: capi.ECHOMQ_ETRYAGAIN, CodeOOM: capi.ECHOMQ_EOOM,
	}
	for g, c := range pairs {
		if int(g) != c {
			t.Errorf("Go code %v = %d, C = %d", g, int(g), int(c))
		}
	}
	outcomes := map[FailOutcome]int{
		Retried: capi.ECHOMQ_FAIL_RETRY, Delayed: capi.ECHOMQ_FAIL_DELAYED, Dead: capi.ECHOMQ_FAIL_DEAD,
	}
	for g, c := range outcomes {
		if int(g) != c {
			t.Errorf("fail outcome %v = %d, C = %d", g, int(g), int(c))
		}
	}
	if int(Backoff) != capi.ECHOMQ_RETRY_BACKOFF {
		t.Errorf("Backoff %d, C %d", Backoff, capi.ECHOMQ_RETRY_BACKOFF)
	}
	if jobNums != capi.EMQGO_JOB_NUMS || statsNums != capi.EMQGO_STATS_NUMS || laneNums != capi.EMQGO_LANE_NUMS {
		t.Errorf("number layouts: Go %d/%d/%d, shims %d/%d/%d", jobNums, statsNums, laneNums,
			capi.EMQGO_JOB_NUMS, capi.EMQGO_STATS_NUMS, capi.EMQGO_LANE_NUMS)
	}
	if capi.EMQGO_STATS_SERVER_TIME_MS != 15 || capi.EMQGO_LANE_OLDEST_ENQUEUED_AT_MS != 9 ||
		capi.EMQGO_LANE_DELAYED != 11 ||
		capi.EMQGO_JOB_PAYLOAD_LEN != 6 || capi.EMQGO_JOB_ATTEMPT != 7 {
		t.Errorf("shim indexes moved: update inspect.go and handles.go")
	}
	if wclaimMax != capi.ECHOMQ_WCLAIM_MAX || ShardsMax != capi.ECHOMQ_SHARDS_MAX || defaultMaxPayload != capi.ECHOMQ_DEFAULT_MAX_PAYLOAD {
		t.Errorf("limits differ from the header")
	}
	if want := fmt.Sprintf("%d.%d.%d", capi.ECHOMQ_VERSION_MAJOR, capi.ECHOMQ_VERSION_MINOR,
		capi.ECHOMQ_VERSION_PATCH); capi.Version_string() != want {
		t.Errorf("library %s, header %s: mismatched libechomq", capi.Version_string(), want)
	}
}

func TestErrorMatching(t *testing.T) {
	err := error(&Error{Code: CodeStale, Msg: "token 1 is not attempt 2"})
	if !errors.Is(err, ErrStaleLease) || errors.Is(err, ErrInvalid) {
		t.Fatal("errors.Is by code")
	}
	wrapped := fmt.Errorf("ack: %w", err)
	var e *Error
	if !errors.As(wrapped, &e) || e.Msg != "token 1 is not attempt 2" {
		t.Fatal("errors.As through wrapping")
	}
	if got := err.Error(); got != "echomq: stale lease: token 1 is not attempt 2" {
		t.Fatalf("message %q", got)
	}
	ce := error(&ctxError{ctx: errors.New("ctx done"), c: &Error{Code: CodeCanceled}})
	if !errors.Is(ce, ErrCanceled) {
		t.Fatal("ctxError does not match ErrCanceled")
	}
	for _, r := range []*Error{ErrBusy, ErrLoading, ErrTryAgain, ErrServerOOM} {
		w := fmt.Errorf("enqueue: %w", &Error{Code: r.Code, Msg: "refused"})
		if !errors.Is(w, r) || !IsRetryable(w) || errors.Is(w, ErrServer) {
			t.Errorf("%v: errors.Is or IsRetryable", r.Code)
		}
	}
	for _, n := range []error{ErrServer, ErrStaleLease, ErrTimeout, ErrNoPerm, errors.New("x")} {
		if IsRetryable(n) {
			t.Errorf("%v reported retryable", n)
		}
	}
}

// The checked-in SWIG output must be what echomq.i and the header produce.
func TestGeneratedWrapperIsCurrent(t *testing.T) {
	if _, err := exec.LookPath("swig"); err != nil {
		t.Skip("swig not installed: cannot regenerate to compare")
	}
	dir := t.TempDir()
	src, _ := filepath.Abs("../internal/capi")
	cmd := exec.Command("swig", "-go", "-cgo", "-intgosize", "64", "-DSWIGWORDSIZE64", "-module", "capi",
		"-o", filepath.Join(dir, "capi_wrap.c"), "-outdir", dir, filepath.Join(src, "echomq.i"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("swig: %v\n%s", err, out)
	}
	for _, f := range []string{"capi.go", "capi_wrap.c"} {
		want, err := os.ReadFile(filepath.Join(dir, f))
		mustOK(t, err)
		if f == "capi.go" { // go generate formats it
			want, err = format.Source(want)
			mustOK(t, err)
		}
		got, err := os.ReadFile(filepath.Join(src, f))
		mustOK(t, err)
		if !bytes.Equal(normalizeSwig(want), normalizeSwig(got)) {
			t.Errorf("internal/capi/%s is stale: run `go generate ./internal/capi` in bindings/go", f)
		}
	}
}

// normalizeSwig drops the lines that name the input file's path, which
// differs between the go:generate run and this one.
func normalizeSwig(b []byte) []byte {
	var out [][]byte
	for _, line := range bytes.Split(b, []byte("\n")) {
		if bytes.Contains(line, []byte("echomq.i")) {
			continue
		}
		out = append(out, line)
	}
	return bytes.Join(out, []byte("\n"))
}
