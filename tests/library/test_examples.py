"""Every script in examples/ runs to its end on a small generated stream (each checks its own
results: a brute-force snapshot, the metrics against the summary line)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from cli_support import REPO

EXAMPLES = REPO / "examples"
SMALL = {
    "recommendation.py": ["--edges", "800"],
    "live_monitor.py": ["--edges", "1000", "--chunks", "2"],
    "rising_transfers.py": ["--edges", "1500"],
}


def test_every_example_is_run_here():
    assert {p.name for p in EXAMPLES.glob("*.py")} == set(SMALL)


@pytest.mark.parametrize("script", sorted(SMALL))
def test_example_runs(script, tmp_path):
    args = SMALL[script] + (["--folder", str(tmp_path)] if script == "live_monitor.py" else [])
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    if script in ("recommendation.py", "rising_transfers.py"):
        assert "matches a brute-force evaluation" in proc.stdout
    else:
        assert "deltas in" in proc.stdout and "checkpoint in" in proc.stdout
