"""The Go package as a Go user gets it: a module outside the repository runs
`go get github.com/echomq/echomq/bindings/go@vX.Y.Z` through a file-based
GOPROXY generated from a release tag (scripts/go-proxy.py), with no
`replace` line and no network, builds against the installed libechomq found
by pkg-config, and runs without LD_LIBRARY_PATH against a real server.

The tag is made here, in a temporary repository that fetched HEAD: the
repository's own tags are left alone. It holds the committed state (HEAD),
as CI's fresh clone does, so commit before running this test by hand."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Dict

import pytest
from emq_valkey import TlsServer  # tests/emq_valkey.py, on the path by conftest.py

ROOT = Path(__file__).resolve().parents[2]

MODULE = "github.com/echomq/echomq/bindings/go"

MAIN_GO = textwrap.dedent("""\
    package main

    import (
    	"context"
    	"fmt"
    	"os"
    	"time"

    	"github.com/echomq/echomq/bindings/go/echomq"
    )

    func main() {
    	ctx := context.Background()
    	c, err := echomq.Dial(ctx, os.Args[1])
    	if err != nil {
    		fmt.Fprintln(os.Stderr, err)
    		os.Exit(1)
    	}
    	defer c.Close()
    	q := c.Queue("go-outside")
    	id, err := q.Enqueue(ctx, "tenant-1", []byte("hello"))
    	if err != nil {
    		fmt.Fprintln(os.Stderr, err)
    		os.Exit(1)
    	}
    	job, err := q.Claim(ctx, 30*time.Second)
    	if err != nil || job.ID != id || string(job.Payload) != "hello" {
    		fmt.Fprintln(os.Stderr, "claim:", job, err)
    		os.Exit(1)
    	}
    	if err := job.Ack(ctx); err != nil {
    		fmt.Fprintln(os.Stderr, "ack:", err)
    		os.Exit(1)
    	}
    	fmt.Println("ok", id)
    }
    """)


def _version() -> str:
    h = (ROOT / "capi/include/echomq/common.h").read_text()
    parts = [re.search(rf"#define ECHOMQ_VERSION_{p} (\d+)", h).group(1) for p in ("MAJOR", "MINOR", "PATCH")]
    return "v" + ".".join(parts)


def _go() -> str:
    go = shutil.which("go") or "/usr/local/go/bin/go"
    assert Path(go).exists(), "the Go toolchain is needed (scripts/setup-deps.sh checks for it)"
    return go


def _run(cmd, **kw) -> subprocess.CompletedProcess:
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)
    assert r.returncode == 0, f"{cmd} failed:\n{r.stdout}\n{r.stderr}"
    return r


@pytest.fixture(scope="module")
def prefix() -> Path:
    p = Path(os.environ.get("ECHOMQ_PREFIX", ROOT / "build" / "prefix")).resolve()
    assert (p / "lib/pkgconfig/echomq-static.pc").exists(), \
        f"install libechomq first: cmake --install build --prefix {p} (or set ECHOMQ_PREFIX)"
    return p


def test_outside_module_gets_the_tag_builds_and_runs(tmp_path: Path, prefix: Path, url: str) -> None:
    version = _version()
    tag = f"bindings/go/{version}"
    clone = tmp_path / "clone"
    # init + fetch HEAD rather than `git clone`: HEAD may be detached (CI).
    _run(["git", "init", "-q", str(clone)])
    _run(["git", "-C", str(clone), "fetch", "-q", str(ROOT), "HEAD"])
    _run(["git", "-C", str(clone), "tag", tag, "FETCH_HEAD"])
    proxy = tmp_path / "proxy"
    _run([sys.executable, str(ROOT / "scripts/go-proxy.py"), "--repo", str(clone), "--tag", tag, "--out", str(proxy)])

    app = tmp_path / "app"
    app.mkdir()
    (app / "go.mod").write_text("module example.com/emqapp\n\ngo 1.22\n")
    (app / "main.go").write_text(MAIN_GO)
    drop = ("LD_LIBRARY_PATH", "GOFLAGS", "GOPROXY", "GONOSUMDB", "GOPRIVATE", "GONOPROXY", "GOSUMDB", "GOWORK")
    env: Dict[str, str] = {k: v for k, v in os.environ.items() if k not in drop}
    env.update({
        "GOPROXY": proxy.as_uri(),            # the only source of modules: no network
        "GONOSUMDB": "github.com/echomq/echomq",  # no checksum database for this module
        "GOFLAGS": "-mod=mod -modcacherw",
        "GOMODCACHE": str(tmp_path / "modcache"),  # a fresh cache: the module really comes from the proxy
        "GOTOOLCHAIN": "local",
        "CGO_ENABLED": "1",
        "PKG_CONFIG_PATH": str(prefix / "lib/pkgconfig"),
    })
    go = _go()
    got = _run([go, "get", f"{MODULE}@{version}"], cwd=app, env=env)
    _run([go, "build", "-o", "emqapp", "."], cwd=app, env=env)

    gomod = (app / "go.mod").read_text()
    assert re.search(rf"^require {re.escape(MODULE)} {re.escape(version)}$", gomod, re.M), gomod
    assert "replace" not in gomod
    got_dir = tmp_path / "modcache" / f"{MODULE}@{version}"
    assert (got_dir / "echomq" / "client.go").exists()
    # The tracing module (bindings/go/otel, its own go.mod) is not in the core's
    # zip, and the core depends on nothing: no OpenTelemetry comes with it.
    assert not (got_dir / "otel").exists()
    assert "require" not in (got_dir / "go.mod").read_text()

    # Static by default: libechomq is inside the binary, nothing to find at run time.
    needed = _run(["readelf", "-d", str(app / "emqapp")]).stdout
    assert "libechomq" not in needed, needed
    ldd = _run(["ldd", str(app / "emqapp")]).stdout
    assert "not found" not in ldd, ldd

    run_env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    out = _run([str(app / "emqapp"), url], env=run_env, cwd=tmp_path).stdout
    assert out.startswith("ok "), out
    # The static build carries TLS: libechomq.a inside, the system's OpenSSL linked.
    assert "[libssl.so.3]" in needed and "[libcrypto.so.3]" in needed, needed
    with TlsServer(prefix="emq-pkg-tls-") as tls:
        out = _run([str(app / "emqapp"), tls.url], env=run_env, cwd=tmp_path).stdout
        assert out.startswith("ok "), out
    print(got.stderr, out)

    # -tags echomq_shared with the rpath bindings/go/README.md shows: links
    # libechomq.so and still runs without LD_LIBRARY_PATH.
    libdir = _run(["pkg-config", "--variable=libdir", "echomq"], env=env).stdout.strip()
    shared_env = dict(env, CGO_LDFLAGS=f"-Wl,-rpath,{libdir}")
    _run([go, "build", "-tags", "echomq_shared", "-o", "emqapp-shared", "."], cwd=app, env=shared_env)
    dyn = _run(["readelf", "-d", str(app / "emqapp-shared")]).stdout
    assert "[libechomq.so.0]" in dyn and "RUNPATH" in dyn, dyn
    out = _run([str(app / "emqapp-shared"), url], env=run_env, cwd=tmp_path).stdout
    assert out.startswith("ok "), out
