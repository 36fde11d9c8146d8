"""The Python wheel carries its own hiredis, links the system's OpenSSL for
TLS, and works in a fresh venv (over TLS too)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tarfile
import textwrap
from pathlib import Path
from typing import Dict, List

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _extension(venv: Path) -> Path:
    found = list(venv.glob("lib/python*/site-packages/echomq/_echomq*.so"))
    assert len(found) == 1, found
    return found[0]


def _needed(lib: Path) -> List[str]:
    out = subprocess.run(["readelf", "-d", str(lib)], check=True, capture_output=True, text=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def test_installed_extension_needs_no_hiredis(venv: Path) -> None:
    needed = _needed(_extension(venv))
    assert needed, "readelf found no NEEDED entry at all"
    assert not [n for n in needed if "hiredis" in n], needed
    # The C and C++ runtimes every Linux has (what auditwheel's manylinux
    # policies allow), and the system's OpenSSL 3 for TLS (linked, not
    # carried: it gets the system's security updates; `auditwheel repair`
    # carries it, below). Nothing of this project's build tree.
    allowed = re.compile(r"^(libstdc\+\+\.so\.6|libgcc_s\.so\.1|libc\.so\.6|libm\.so\.6|ld-linux-x86-64\.so\.2|libpthread\.so\.0)$")
    assert [n for n in needed if not allowed.match(n)] == ["libssl.so.3", "libcrypto.so.3"], needed
    ldd = subprocess.run(["ldd", str(_extension(venv))], check=True, capture_output=True, text=True).stdout
    assert "not found" not in ldd and "hiredis" not in ldd, ldd


def test_auditwheel_repair_carries_openssl_into_a_manylinux_wheel(dist: Dict[str, Path], tmp_path: Path) -> None:
    # As built, the wheel needs the system's libssl.so.3 and libcrypto.so.3,
    # which no manylinux policy lists: auditwheel rates it linux_x86_64.
    # `auditwheel repair` copies exactly those two into echomq.libs and
    # gives a manylinux wheel (the form to publish); hiredis is inside the
    # extension already.
    out = subprocess.run([sys.executable, "-m", "auditwheel", "show", str(dist["wheel"])],
                         check=True, capture_output=True, text=True).stdout
    assert "hiredis" not in out, out
    subprocess.run([sys.executable, "-m", "auditwheel", "repair", "-w", str(tmp_path), str(dist["wheel"])],
                   check=True, capture_output=True, text=True, timeout=300)
    repaired = list(tmp_path.glob("echomq-*manylinux_2_*_x86_64.whl"))
    assert len(repaired) == 1, list(tmp_path.iterdir())
    import zipfile
    with zipfile.ZipFile(repaired[0]) as z:
        carried = sorted(re.sub(r"-[0-9a-f]{8}", "", n.split("/", 1)[1])
                         for n in z.namelist() if n.startswith("echomq.libs/") and not n.endswith("/"))
    assert carried == ["libcrypto.so.3", "libssl.so.3"], carried


def test_sdist_holds_what_the_build_needs(dist: Dict[str, Path]) -> None:
    with tarfile.open(dist["sdist"]) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    for want in ("pyproject.toml", "CMakeLists.txt", "cmake/hiredis.cmake", "cmake/openssl.cmake",
                 "capi/include/echomq/echomq.h",
                 "bindings/python/echomq/__init__.py", "bindings/python/src/module.cpp"):
        assert want in names, want
    assert any(n.startswith("lua/") and n.endswith(".lua") for n in names)
    assert not any(n.startswith(("build/", ".git/")) for n in names)


def test_wheel_in_a_fresh_venv_enqueues_claims_and_acks(venv: Path, url: str, tmp_path: Path) -> None:
    # -I: isolated mode, so neither the repository nor PYTHONPATH can supply
    # the package; the run happens in an empty folder for the same reason.
    script = textwrap.dedent("""
        import sys, echomq
        assert echomq.__file__.startswith(sys.prefix), echomq.__file__
        with echomq.connect(sys.argv[1]) as client:
            q = client.queue("pkg-venv")
            jid = q.enqueue("tenant-1", b"hello")
            job = q.claim(lease=30)
            assert job is not None and job.id == jid and job.payload == b"hello", job
            job.ack()
            assert q.claim(lease=30) is None
            assert q.verify() == []
        print("ok", echomq.__version__)
    """)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_LIBRARY_PATH")}
    r = subprocess.run([str(venv / "bin" / "python"), "-I", "-c", script, url], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("ok "), r.stdout


def _configure(tmp_path: Path, env_extra: Dict[str, str], *defs: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, **env_extra)
    return subprocess.run(["cmake", "-S", str(ROOT), "-B", str(tmp_path / "b"), "-DECHOMQ_BUILD_TESTS=OFF",
                           "-DECHOMQ_BUILD_CLI=OFF", "-DECHOMQ_BUILD_EXAMPLES=OFF", "-DECHOMQ_BUILD_BENCH=OFF", *defs],
                          env=env, capture_output=True, text=True, timeout=300)


def test_missing_hiredis_names_the_package_to_install(tmp_path: Path) -> None:
    empty = tmp_path / "no-pc"
    empty.mkdir()
    # PKG_CONFIG_LIBDIR replaces pkg-config's default search path: no hiredis.pc.
    r = _configure(tmp_path, {"PKG_CONFIG_LIBDIR": str(empty), "PKG_CONFIG_PATH": ""})
    msg = " ".join(r.stderr.split())  # CMake wraps long messages
    assert r.returncode != 0
    assert "hiredis not found" in msg and "apt-get install pkg-config libhiredis-dev" in msg, r.stderr


def test_missing_hiredis_archive_names_the_package_to_install(tmp_path: Path) -> None:
    # A hiredis.pc whose libdir holds no libhiredis.a: headers but no archive.
    pc = tmp_path / "pc"
    (pc / "lib").mkdir(parents=True)
    (pc / "hiredis.pc").write_text(f"libdir={pc / 'lib'}\nincludedir=/usr/include/hiredis\n"
                                   "Name: hiredis\nDescription: x\nVersion: 0.14.1\n"
                                   "Libs: -L${libdir} -lhiredis\nCflags: -I${includedir}\n")
    r = _configure(tmp_path, {"PKG_CONFIG_LIBDIR": str(pc), "PKG_CONFIG_PATH": ""}, "-DECHOMQ_HIREDIS_STATIC=ON")
    msg = " ".join(r.stderr.split())
    assert r.returncode != 0
    assert "libhiredis.a" in msg and "apt-get install libhiredis-dev" in msg, r.stderr


DASHBOARD_FILES = ("echomq/dashboard/__init__.py", "echomq/dashboard/app.py", "echomq/dashboard/static/index.html",
                   "echomq/dashboard/static/app.js", "echomq/dashboard/static/chart.js",
                   "echomq/dashboard/static/style.css", "echomq/dashboard/static/favicon.svg")


def test_wheel_and_sdist_carry_the_dashboard_assets(dist: Dict[str, Path]) -> None:
    import zipfile

    with zipfile.ZipFile(dist["wheel"]) as z:
        names = set(z.namelist())
        meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = z.read(meta).decode()
        entry_points = z.read(meta.replace("METADATA", "entry_points.txt")).decode()
    for want in DASHBOARD_FILES:
        assert want in names, want
    assert "Provides-Extra: dashboard" in metadata
    for dep in ("starlette", "uvicorn", "prometheus-client"):
        assert re.search(rf"Requires-Dist: {dep}\b.*extra == .dashboard.", metadata), dep
    assert re.search(r"^echomq-dashboard = echomq\.dashboard:main$", entry_points, re.M), entry_points
    with tarfile.open(dist["sdist"]) as t:
        snames = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    for want in DASHBOARD_FILES:
        assert "bindings/python/" + want in snames, want


def test_dashboard_without_its_extra_names_what_to_install(venv: Path, url: str, tmp_path: Path) -> None:
    # The fresh venv has the wheel only, without the dashboard's dependencies.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_LIBRARY_PATH")}
    r = subprocess.run([str(venv / "bin" / "echomq-dashboard"), "--help"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "--allow-actions" in r.stdout, r.stderr
    r = subprocess.run([str(venv / "bin" / "echomq-dashboard"), url], cwd=tmp_path, env=env, stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "pip install 'echomq[dashboard]'" in r.stderr, r.stderr
def test_wheel_in_a_fresh_venv_speaks_tls(venv: Path, tmp_path: Path) -> None:
    from emq_valkey import TlsServer

    script = textwrap.dedent("""
        import sys, echomq
        with echomq.connect(sys.argv[1]) as client:
            q = client.queue("pkg-tls")
            jid = q.enqueue("tenant-1", b"over tls")
            job = q.claim(lease=30)
            assert job is not None and job.id == jid and job.payload == b"over tls", job
            job.ack()
        try:
            echomq.connect(sys.argv[2])
        except echomq.TLSError as e:
            print("refused", e.code)
    """)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "LD_LIBRARY_PATH")}
    with TlsServer(prefix="emq-pkg-tls-") as tls:
        wrong = f"{tls.base}?ca={tls.cert('other-ca.pem')}"
        r = subprocess.run([str(venv / "bin" / "python"), "-I", "-c", script, tls.url, wrong], cwd=tmp_path,
                           env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "refused -13", r.stdout
