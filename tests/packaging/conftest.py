"""Fixtures for the packaging tests: the sdist and wheel made once per run
(or taken from ECHOMQ_DIST_DIR, where scripts/test.sh builds them), a fresh
venv with only that wheel in it, and a throwaway valkey-server
(tests/emq_valkey.py), as every other suite has."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, Iterator

import pytest

ROOT = Path(__file__).resolve().parents[2]
# tests/emq_valkey.py: the throwaway server every Python suite uses.
sys.path.insert(0, str(ROOT / "tests"))
from emq_valkey import Server  # noqa: E402


def _one(folder: Path, pattern: str) -> Path:
    found = sorted(folder.glob(pattern))
    assert len(found) == 1, f"expected one {pattern} in {folder}, found {found}"
    return found[0]


@pytest.fixture(scope="session")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Path]:
    """{"sdist": ..., "wheel": ...}. `python -m build` makes the sdist and then
    the wheel from the unpacked sdist, so a file missing from the sdist
    breaks the wheel too. Without build isolation: the build needs nothing
    that scripts/setup-deps.sh has not installed, and no network."""
    given = os.environ.get("ECHOMQ_DIST_DIR")
    if given:
        out = Path(given).resolve()
    else:
        out = tmp_path_factory.mktemp("dist")
        env = dict(os.environ, CMAKE_BUILD_PARALLEL_LEVEL=os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2"))
        subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
                       check=True, env=env, stdout=subprocess.DEVNULL, timeout=900)
    return {"sdist": _one(out, "echomq-*.tar.gz"), "wheel": _one(out, "echomq-*.whl")}


@pytest.fixture(scope="session")
def venv(dist: Dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv (no system site-packages) holding only the wheel.
    --no-deps: the package has no Python dependencies, and the install must
    not reach for a network."""
    v = tmp_path_factory.mktemp("venv") / "env"
    subprocess.run([sys.executable, "-m", "venv", str(v)], check=True, timeout=300)
    py = v / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-index",
                    "--no-deps", str(dist["wheel"])], check=True, timeout=300)
    return v


@pytest.fixture(scope="session")
def url() -> Iterator[str]:
    """A throwaway valkey-server's URL; the server is always stopped."""
    with Server(prefix="emq-pkg-") as s:
        yield s.url
