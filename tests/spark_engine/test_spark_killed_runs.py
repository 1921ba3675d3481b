"""Exactly-once restarts of the Spark engine from its checkpoint (spark_engine/commits.py),
as a user meets them: an `sgq run --engine spark` killed at any of its commit steps, and
started again with the same command, ends with the output file of an uninterrupted run, byte
for byte; a batch output directory (`-o DIR/`) ends holding the same rows, read back in order.
(Each case starts two Spark processes: CI runs this file after the thorough harness profile,
beside the rest of the slow tests.)"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.spark

REPO = Path(__file__).resolve().parents[2]


def _sgq(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sgq.cli", *args], capture_output=True, text=True, cwd=REPO
    )


BATCHES = 4  # one a day, the last one's state kept


@pytest.fixture(scope="module")
def knows_whole(tmp_path_factory):
    """The stream, the command and the uninterrupted run's output that every killed run below
    is compared with: one Spark run per test session, not one per case nor per test worker
    (the first worker to get here makes it under a lock, the others wait and read it). The
    program is a closure (`[knows*]`), whose state every batch changes: the commit protocol
    is the same for every program, and SGA Q7's two closures and join took half as long again
    in Spark jobs (test_spark_checkpoint.py restores a join's and a WSCAN's state in process)."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):  # the session's directory, above the worker's
        root = root.parent
    base = root / "knows-whole"
    base.mkdir(exist_ok=True)
    stream = base / "snb.csv"
    program = str(REPO / "specs" / "queries" / "rpq" / "snb" / "q1.dl")
    common = [program, "--engine", "spark", "-i", str(stream), "--window", "2d", "--emit", "deltas"]
    with open(base / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (base / "done").exists():
            made = _sgq(
                "gen", "snb", "--edges", "300", "--seed", "3", "--days", "4", "-o", str(stream)
            )
            assert made.returncode == 0, made.stderr
            whole = _sgq("run", *common, "-o", str(base / "whole.csv"))
            assert whole.returncode == 0, whole.stderr
            (base / "done").touch()
    return common, (base / "whole.csv").read_bytes()


@pytest.mark.slow
@pytest.mark.parametrize(
    "kill_at, out",
    [
        # one kill per phase of a batch, on the output kinds where the phase differs
        ("2:batch", "out.csv"),
        ("2:written", "out.csv"),
        ("2:batch", "out/"),  # batch 2's directory written, not committed: written again
        ("3:state", "out/"),
    ],
)
def test_a_killed_run_resumes_from_its_checkpoint(knows_whole, tmp_path, kill_at, out):
    common, whole = knows_whole
    ckpt = ["--checkpoint", str(tmp_path / "ckpt"), "-o", f"{tmp_path}/{out}"]
    killed = _sgq("run", *common, *ckpt, "--kill-at", kill_at)
    assert killed.returncode == -9, killed.stderr
    again = _sgq("run", *common, *ckpt)
    assert again.returncode == 0, again.stderr
    assert "resuming from checkpoint" in again.stderr
    if out.endswith("/"):  # the batches read back in order: the single file's bytes
        assert _sgq("results", f"{tmp_path}/{out}", "-o", str(tmp_path / "out.csv")).returncode == 0
    assert (tmp_path / "out.csv").read_bytes() == whole
    assert os.listdir(tmp_path / "ckpt" / "state") == [str(BATCHES - 1)]
