"""Every code block of README.md, bindings/python/README.md,
bindings/go/README.md and docs/migrating.md, run against a real valkey-server or compiled, as
its doc-test comment says (tests/docs/README.md): docs that cannot drift.

Each block runs on a flushed server, with the README's default URL
(valkey://127.0.0.1:6379) replaced by the test server's. Needs the build
(ECHOMQ_BUILD_DIR, default build/), installed into its prefix (build/prefix,
as scripts/test.sh does) for the C and Go blocks, and the Python package.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Tuple

import pytest

from .blocks import Block, DocTestError, blocks

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from emq_valkey import Resp, Server  # noqa: E402

DOCS = [ROOT / "README.md", ROOT / "bindings/python/README.md", ROOT / "bindings/go/README.md",
        ROOT / "docs/migrating.md"]
if os.environ.get("ECHOMQ_DOCS_FILES"):  # other Markdown files, to try the runner on them
    DOCS = [Path(p).resolve() for p in os.environ["ECHOMQ_DOCS_FILES"].split()]
BUILD = Path(os.environ.get("ECHOMQ_BUILD_DIR", ROOT / "build"))
PREFIX = BUILD / "prefix"
DEFAULT_URL = "valkey://127.0.0.1:6379"
GO_MODULE = "github.com/echomq/echomq/bindings/go/echomq"
GO_IMPORTS = ["context", "errors", "fmt", "os", "strings", "time", GO_MODULE]


def _collect() -> Tuple[List[Block], List[str]]:
    found, errors = [], []
    for doc in DOCS:
        try:
            found.extend(blocks(doc, str(doc.relative_to(ROOT)) if doc.is_relative_to(ROOT) else doc.name))
        except DocTestError as exc:
            errors.append(str(exc))
    return found, errors


BLOCKS, PARSE_ERRORS = _collect()


def test_every_block_says_how_it_is_checked():
    assert not PARSE_ERRORS, "\n".join(PARSE_ERRORS)
    assert len(BLOCKS) > 30


def header_version() -> str:
    # The version is defined once, in one of the C API's headers.
    h = "".join(p.read_text() for p in sorted((ROOT / "capi/include/echomq").glob("*.h")))
    parts = [re.search(rf"#define ECHOMQ_VERSION_{p}\s+(\d+)", h).group(1) for p in ("MAJOR", "MINOR", "PATCH")]
    return ".".join(parts)


def test_go_versions_in_code_blocks_are_the_libraries():
    # Dial refuses a libechomq of another minor version before 1.0: a
    # `go get ...@vX.Y.Z` or tag in a block must name the library's version.
    want = header_version()
    seen = []
    for b in BLOCKS:
        for v in re.findall(r"(?:@|bindings/go/)v(\d+\.\d+\.\d+)", b.code):
            seen.append((b.name, v))
    assert seen, "no versioned go get in the READMEs"
    assert all(v == want for _, v in seen), (want, seen)


# -- the server and the tools ------------------------------------------------


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    with Server(prefix="emq-docs-") as s:
        yield s


@pytest.fixture()
def fresh(server: Server, tmp_path: Path) -> Tuple[str, Path]:
    with Resp(server.sock) as r:
        r("FLUSHALL")
    return server.url, tmp_path


def env_for(tmp: Path) -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ECHOMQ_") or k == "ECHOMQ_BUILD_DIR"}
    env.update({
        "PATH": f"{BUILD / 'cli'}:{os.path.dirname(sys.executable)}:{env.get('PATH', '')}:/usr/local/go/bin",
        "PKG_CONFIG_PATH": str(PREFIX / "lib/pkgconfig"),
        "HOME": str(tmp),
        "PYTHONDONTWRITEBYTECODE": "1",
    })
    return env


def run(argv: List[str], cwd: Path, env: Dict[str, str], block: Block, timeout: float = 60,
        interrupt: Optional[float] = None) -> subprocess.CompletedProcess:
    """Runs argv in its own process group; with `interrupt`, sends SIGINT
    after that many seconds (a documented 'runs until SIGINT')."""
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        if interrupt is not None:
            try:
                out, err = proc.communicate(timeout=interrupt)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGINT)
                out, err = proc.communicate(timeout=timeout)
        else:
            out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"{block.name}: still running after {timeout} s")
    return subprocess.CompletedProcess(argv, proc.returncode, out.decode(errors="replace"),
                                       err.decode(errors="replace"))


def expect_exit(p: subprocess.CompletedProcess, block: Block, source: str = "") -> None:
    want = int(block.options.get("exit", "0"))
    assert p.returncode == want, (f"{block.name} exited {p.returncode}, want {want}\n--- stdout\n{p.stdout}"
                                  f"\n--- stderr\n{p.stderr}\n--- source\n{source}")


def check_paths_exist(block: Block) -> None:
    for a in block.args:
        assert (ROOT / a).exists(), f"{block.name}: covered-by names {a}, which does not exist"


def shell_check(block: Block) -> None:
    """bash -n, and every ./scripts/... or tests/... path the block names exists."""
    p = subprocess.run(["bash", "-n"], input=block.code, text=True, capture_output=True)
    assert p.returncode == 0, f"{block.name}: {p.stderr}"
    for path in re.findall(r"(?:^|\s|\./)((?:scripts|tests|bindings|examples)/[\w./-]+\.(?:sh|py))", block.code):
        assert (ROOT / path).exists(), f"{block.name}: names {path}, which does not exist"


# -- per language ------------------------------------------------------------


def run_python(block: Block, url: str, tmp: Path) -> None:
    source = (block.before + block.code + block.after).replace(DEFAULT_URL, url)
    if block.mode == "compile":
        compile(source, block.name, "exec")
        return
    (tmp / "block.py").write_text(source)
    interrupt = float(block.options["interrupt"]) if "interrupt" in block.options else None
    p = run([sys.executable, "block.py"], tmp, env_for(tmp), block, interrupt=interrupt)
    expect_exit(p, block, source)


def run_shell(block: Block, url: str, tmp: Path) -> None:
    shell_check(block)
    if block.mode != "run":
        return
    source = "set -euo pipefail\n" + (block.before + block.code + block.after).replace(DEFAULT_URL, url)
    (tmp / "block.sh").write_text(source)
    env = env_for(tmp)
    env["ECHOMQ_DOCS_ROOT"] = str(ROOT)
    env["ECHOMQ_DOCS_BUILD"] = str(BUILD)
    interrupt = float(block.options["interrupt"]) if "interrupt" in block.options else None
    p = run(["bash", "block.sh"], tmp, env, block, timeout=120, interrupt=interrupt)
    expect_exit(p, block, source)


C_HEAD = "#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"


def run_c(block: Block, url: str, tmp: Path) -> None:
    code = block.code.replace(DEFAULT_URL, url)
    includes = "".join(line + "\n" for line in code.splitlines() if line.startswith("#include"))
    body = "".join(line + "\n" for line in code.splitlines() if not line.startswith("#include"))
    source = (C_HEAD + includes + "\nint main(int argc, char **argv) {\n(void)argc; (void)argv;\n" +
              block.before + body + block.after + "return 0;\n}\n")
    (tmp / "block.c").write_text(source)
    env = env_for(tmp)
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "echomq"], env=env, capture_output=True, text=True,
                           check=True).stdout.split()
    libdir = subprocess.run(["pkg-config", "--variable=libdir", "echomq"], env=env, capture_output=True, text=True,
                            check=True).stdout.strip()
    p = subprocess.run(["cc", "-std=c99", "-Wall", "-o", "block", "block.c", *flags, f"-Wl,-rpath,{libdir}"],
                       cwd=tmp, env=env, capture_output=True, text=True)
    assert p.returncode == 0, f"{block.name} does not compile:\n{p.stderr}\n--- source\n{source}"
    if block.mode == "run":
        expect_exit(run(["./block"], tmp, env, block), block, source)


def go_func_name(block: Block) -> str:
    return "doc_" + re.sub(r"\W", "_", block.name)


def go_program(go_blocks: List[Block]) -> str:
    funcs = []
    for b in go_blocks:
        code = (b.before + b.code + b.after).replace(f'"{DEFAULT_URL}"', "url")
        funcs.append(f"func {go_func_name(b)}(ctx context.Context, url string) error {{\n{code}\treturn nil\n}}\n")
    table = "".join(f'\t"{b.name}": {go_func_name(b)},\n' for b in go_blocks)
    imports = "".join(f'\t"{i}"\n' for i in GO_IMPORTS)
    return (f"package main\n\nimport (\n{imports})\n\n"
            "var _, _, _, _, _ = errors.New, fmt.Sprint, strings.TrimSpace, time.Second, echomq.Dial\n\n"
            + "\n".join(funcs) +
            f"\nvar docs = map[string]func(context.Context, string) error{{\n{table}}}\n\n"
            "func main() {\n"
            "\tctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)\n"
            "\tdefer cancel()\n"
            "\tif err := docs[os.Args[1]](ctx, os.Args[2]); err != nil {\n"
            "\t\tfmt.Fprintln(os.Stderr, err)\n\t\tos.Exit(1)\n\t}\n}\n")


def go_env(tmp: Path) -> Dict[str, str]:
    env = env_for(tmp)
    # The user's build cache (HOME is a temporary one here).
    cache = subprocess.run(["go", "env", "GOCACHE"], capture_output=True, text=True,
                           env=dict(os.environ, PATH=env["PATH"])).stdout.strip()
    env.update({"CGO_ENABLED": "1", "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local", "GOPROXY": "off",
                "GOCACHE": cache})
    # The stamp scripts/test.sh gives go test (it passes its CGO_CPPFLAGS
    # on), or the same one made here: Go's cache then knows this libechomq.
    given = os.environ.get("CGO_CPPFLAGS", "")
    if "-DECHOMQ_LIB_STAMP=" not in given:
        files = sorted((PREFIX / "include/echomq").glob("*.h")) + [PREFIX / "lib/libechomq.a"]
        stamp = hashlib.sha256(b"".join(f.read_bytes() for f in files)).hexdigest()[:16]
        given = f"-DECHOMQ_LIB_STAMP={stamp}"
    env["CGO_CPPFLAGS"] = given
    return env


@pytest.fixture(scope="session")
def go_binary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every Go block of the READMEs, a function each, in one program."""
    go_blocks = [b for b in BLOCKS if b.lang == "go" and b.mode in ("run", "compile") and not _import_only(b)]
    work = tmp_path_factory.mktemp("docs-go")
    (work / "go.mod").write_text(f"module echomqdocs\n\ngo 1.22\n\nrequire github.com/echomq/echomq/bindings/go "
                                 f"v0.0.0\n\nreplace github.com/echomq/echomq/bindings/go => {ROOT / 'bindings/go'}\n")
    source = go_program(go_blocks)
    (work / "main.go").write_text(source)
    # -race, as scripts/test.sh's go test: the cgo package comes from its cache.
    p = subprocess.run(["go", "build", "-race", "-o", "docs", "."], cwd=work, env=go_env(work), capture_output=True, text=True,
                       timeout=600)
    if p.returncode != 0:
        numbered = "\n".join(f"{i + 1:4} {line}" for i, line in enumerate(source.splitlines()))
        pytest.fail(f"the Go blocks do not compile:\n{p.stderr}\n--- main.go\n{numbered}")
    return work / "docs"


def _import_only(block: Block) -> bool:
    lines = [line.strip() for line in block.code.splitlines() if line.strip()]
    return bool(lines) and all(re.fullmatch(r'import "[^"]+"', line) for line in lines)


def run_go(block: Block, url: str, tmp: Path, go_binary: Path) -> None:
    if _import_only(block):
        # The program the runner builds imports these very paths.
        for path in re.findall(r'import "([^"]+)"', block.code):
            assert path in GO_IMPORTS, f"{block.name}: imports {path}, which the doc program does not"
        return
    if block.mode == "compile":
        return  # built into the program with the others
    interrupt = float(block.options["interrupt"]) if "interrupt" in block.options else None
    p = run([str(go_binary), block.name, url], tmp, env_for(tmp), block, interrupt=interrupt)
    expect_exit(p, block, block.code)


# -- a shell session: `$ command` lines and the output they print ------------


def run_session(block: Block, url: str, tmp: Path) -> None:
    steps: List[Tuple[str, List[str]]] = []
    for line in block.code.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            assert steps, f"{block.name}: output before the first command"
            steps[-1][1].append(line)
    not_run = set(block.options.get("not-run", "").split(",")) - {""}
    env = env_for(tmp)
    env["ECHOMQ_URL"] = url
    tokens: Dict[str, str] = {}  # long numbers shown (tokens) -> the ones this run got
    for command, expected in steps:
        for shown, real in tokens.items():
            command = command.replace(shown, real)
        words = command.split()
        if len(words) > 1 and words[0] == "echomq" and words[1] in not_run:
            # Needs a terminal: its help must still answer.
            p = run(["bash", "-c", f"echomq {words[1]} --help"], tmp, env, block)
            assert p.returncode == 0, (command, p.stderr)
            continue
        script = "set -o pipefail\n" + (f"cd {tmp}\n") + command + "\n"
        env_file = tmp / "session.env"
        if env_file.exists():
            script = env_file.read_text() + script
        # `export` lines carry over to the next commands, as in one shell.
        script += f"\nexport -p > {env_file}\n"
        p = run(["bash", "-c", script], tmp, env, block)
        assert p.returncode == 0, f"{block.name}: `{command}` exited {p.returncode}: {p.stderr}"
        if not expected:
            continue
        got = p.stdout.rstrip("\n").split("\n")
        assert len(got) == len(expected), f"{block.name}: `{command}` printed\n{p.stdout}\nnot\n" + "\n".join(expected)
        for want, have in zip(expected, got):
            pattern = re.escape(want.rstrip())
            longs = re.findall(r"\d{10,}", want)
            for n in longs:
                pattern = pattern.replace(n, r"(\d+)")
            m = re.fullmatch(pattern, have.rstrip())
            assert m, f"{block.name}: `{command}` printed\n{have!r}\nnot\n{want!r}"
            for n, real in zip(longs, m.groups()):
                tokens[n] = real


# -- the test ------------------------------------------------------------------


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: b.name)
def test_block(block: Block, fresh: Tuple[str, Path], request: pytest.FixtureRequest) -> None:
    url, tmp = fresh
    if block.mode == "covered-by":
        check_paths_exist(block)
        if block.lang in ("sh", "bash"):
            shell_check(block)
        return
    if block.mode == "check-only":
        if block.lang in ("sh", "bash"):
            shell_check(block)
        elif block.lang == "python":
            compile(block.code, block.name, "exec")
        return
    if block.mode == "session":
        run_session(block, url, tmp)
    elif block.lang == "python":
        run_python(block, url, tmp)
    elif block.lang in ("sh", "bash"):
        run_shell(block, url, tmp)
    elif block.lang == "c":
        run_c(block, url, tmp)
    elif block.lang == "go":
        run_go(block, url, tmp, request.getfixturevalue("go_binary"))
    else:
        pytest.fail(f"{block.name}: no way to {block.mode} a {block.lang or 'plain'} block")
    if block.mode in ("run", "session"):
        no_job_left_leased(block, url)


def no_job_left_leased(block: Block, url: str) -> None:
    """An example settles every job it claims (a job left leased waits out
    its lease: a copied example would stall its queue), and leaves every
    queue sound (verify)."""
    import echomq

    with echomq.connect(url) as c:
        for name in c.queues():
            q = c.queue(name)
            assert q.verify() == [], f"{block.name}: queue {name!r}: {q.verify()}"
            leased = q.stats().leased
            assert leased == int(block.options.get("leaves-leased", "0")), \
                f"{block.name} left {leased} job(s) of queue {name!r} leased"
