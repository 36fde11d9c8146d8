"""The emoji guess-scorer example runs and shows the masher not delaying
the quiet players."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from emq_helpers import python_env

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "python" / "guess_scorer.py"


def _row(out: str, name: str):
    m = re.search(rf"^\s*{name}\s+(\d+) ms\s+(\d+) ms\s+(\d+) ms\s+(\d+) ms$", out, re.M)
    assert m, out
    return [int(x) for x in m.groups()]


def test_guess_scorer_example(url):
    proc = subprocess.run(
        [sys.executable, str(EXAMPLE), "--url", url, "--mash", "400", "--players", "5", "--guesses", "2",
         "--slots", "2", "--work-ms", "2"],
        env=python_env(), capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    quiet_med, quiet_max, masher_med, _ = _row(proc.stdout, "fair lanes")
    fifo_quiet_med = _row(proc.stdout, "one FIFO line")[0]
    assert quiet_med < masher_med, proc.stdout
    assert quiet_med < fifo_quiet_med / 2, proc.stdout
    assert "scored 410 guesses" in proc.stdout
