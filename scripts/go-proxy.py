#!/usr/bin/env python3
"""Writes a file-based Go module proxy holding bindings/go at one release tag,
so `go get` works with no network and no `replace` line:

    scripts/go-proxy.py --tag bindings/go/v0.2.0 --out /tmp/emq-proxy [--repo .]
    GOPROXY=file:///tmp/emq-proxy GONOSUMDB=github.com/echomq/echomq \\
        go get github.com/echomq/echomq/bindings/go@v0.2.0

The module is taken from the tag (git archive), not from the working tree.
The layout is the GOPROXY protocol's: <module>/@v/{list,vX.Y.Z.info,.mod,.zip},
the zip holding every file of the module under <module>@<version>/ (the
subdirectory-module convention: tag bindings/go/vX.Y.Z is module
github.com/echomq/echomq/bindings/go at vX.Y.Z).
"""

from __future__ import annotations

import argparse
import io
import json
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

SUBDIR = "bindings/go"


def git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True).stdout


def module_files(repo: Path, tag: str) -> dict:
    """path inside the module -> bytes, for the regular files of SUBDIR at tag."""
    tar = tarfile.open(fileobj=io.BytesIO(git(repo, "archive", "--format=tar", tag, SUBDIR)))
    files = {}
    for m in tar.getmembers():
        if not m.isfile():
            continue  # module zips hold regular files only
        rel = m.name[len(SUBDIR) + 1:]
        parts = rel.split("/")
        if "vendor" in parts[:-1]:
            continue
        files[rel] = tar.extractfile(m).read()
    # A folder with its own go.mod is another module: leave it out.
    nested = {p.rsplit("/", 1)[0] + "/" for p in files if p.endswith("/go.mod")}
    return {p: b for p, b in files.items() if not any(p.startswith(n) for n in nested)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tag", required=True, help=f"a tag {SUBDIR}/vX.Y.Z")
    ap.add_argument("--out", required=True, type=Path, help="the proxy folder (GOPROXY=file://<out>)")
    ap.add_argument("--repo", default=Path(__file__).resolve().parents[1], type=Path)
    a = ap.parse_args()

    m = re.fullmatch(re.escape(SUBDIR) + r"/(v\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)", a.tag)
    if not m:
        print(f"go-proxy: tag must be {SUBDIR}/vX.Y.Z, got {a.tag!r}", file=sys.stderr)
        return 2
    version = m.group(1)
    files = module_files(a.repo, a.tag)
    gomod = files.get("go.mod")
    if gomod is None:
        print(f"go-proxy: {a.tag} has no {SUBDIR}/go.mod", file=sys.stderr)
        return 2
    module = re.search(rb"^module\s+(\S+)", gomod, re.M).group(1).decode()
    when = git(a.repo, "log", "-1", "--format=%cI", a.tag + "^{commit}").decode().strip()

    vdir = a.out / module / "@v"
    vdir.mkdir(parents=True, exist_ok=True)
    (vdir / f"{version}.mod").write_bytes(gomod)
    (vdir / f"{version}.info").write_text(json.dumps({"Version": version, "Time": when}) + "\n")
    with zipfile.ZipFile(vdir / f"{version}.zip", "w", zipfile.ZIP_DEFLATED) as z:
        for rel in sorted(files):
            z.writestr(f"{module}@{version}/{rel}", files[rel])
    listed = set((vdir / "list").read_text().split()) if (vdir / "list").exists() else set()
    (vdir / "list").write_text("".join(v + "\n" for v in sorted(listed | {version})))
    print(f"{module}@{version} -> {vdir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
