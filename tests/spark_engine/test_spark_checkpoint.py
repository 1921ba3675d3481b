"""Exactly-once restarts of the Spark engine from its checkpoint (spark_engine/commits.py):
a run stopped between batches, or killed at any of its commit steps, and started again with
the same command, ends with the output file of an uninterrupted run, byte for byte; a batch
output directory (`-o DIR/`) ends holding the same rows, read back in order."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from sgq.sga.cost.statistics import collect
from sgq.spark_engine.commits import SparkCheckpoint
from sgq.spark_engine.driver import SparkRun
from sgq.spark_engine.engine import SparkEngine
from sgq.spark_engine.source import driver_batches

import sgq
from sgq.errors import UserError

pytestmark = pytest.mark.spark

REPO = Path(__file__).resolve().parents[2]

PROGRAM = ".window 4\n.slide 2\nAnswer(x, y) :- a(x, z), a(z, y)."
EDGES = [("1", "2", "a", 0), ("2", "3", "a", 1), ("3", "1", "a", 2), ("1", "2", "a", 5)]


class Crash(Exception):
    """Stands for a process killed after the batches before it were committed."""


def _run(
    spark,
    out: Path,
    ckpt: Path,
    emit: str,
    stop_after: int | None = None,
    program: str = PROGRAM,
    edges: list = EDGES,
    optimize: bool = False,
) -> None:
    """`program` over `edges` (planned by the optimizer over their statistics if `optimize`)
    into `out`, checkpointed in `ckpt`; raises Crash before batch `stop_after`."""
    query = sgq.compile(text=program, statistics=collect(edges) if optimize else None)
    engine = SparkEngine(query.plan, spark)
    checkpoint = SparkCheckpoint(str(ckpt), {"program": program, "emit": emit})
    batches = driver_batches(spark, edges, engine.grid, engine.labels, "test")

    def stopping():
        for n, got in enumerate(batches):
            if n == stop_after:
                raise Crash
            yield got

    SparkRun(engine, str(out), emit, "csv", checkpoint).run(stopping())


SEVERAL_LABELS = ".window 4\n.slide 2\nAnswer(x, y) :- a(x, y).\nAnswer(x, y) :- b(x, y).\n"
SEVERAL_EDGES = [("1", "2", "a", 0), ("1", "2", "b", 1), ("2", "3", "b", 2), ("1", "2", "a", 5)]


@pytest.mark.slow
def test_a_wscan_over_several_labels_resumes_exactly_once(spark, tmp_path):
    """The optimizer's WSCAN over a and b (thesis rule 13): its one table restored."""
    spark.conf.set("spark.sql.shuffle.partitions", "1")
    plan = sgq.compile(text=SEVERAL_LABELS, statistics=collect(SEVERAL_EDGES)).plan
    assert [n.labels for n in plan.nodes()] == [("a", "b")]
    runs = dict(program=SEVERAL_LABELS, edges=SEVERAL_EDGES, optimize=True)
    _run(spark, tmp_path / "whole.csv", tmp_path / "c1", "intervals", **runs)
    with pytest.raises(Crash):
        _run(spark, tmp_path / "resumed.csv", tmp_path / "c2", "intervals", 1, **runs)
    _run(spark, tmp_path / "resumed.csv", tmp_path / "c2", "intervals", **runs)
    whole = (tmp_path / "whole.csv").read_text()
    assert (tmp_path / "resumed.csv").read_text() == whole
    assert len(whole.splitlines()) > 2


@pytest.mark.slow
@pytest.mark.parametrize("emit", ["intervals", "deltas"])
def test_a_run_stopped_between_batches_resumes_exactly_once(spark, tmp_path, emit):
    spark.conf.set("spark.sql.shuffle.partitions", "1")
    _run(spark, tmp_path / "whole.csv", tmp_path / "c1", emit)
    with pytest.raises(Crash):
        _run(spark, tmp_path / "resumed.csv", tmp_path / "c2", emit, stop_after=1)
    _run(spark, tmp_path / "resumed.csv", tmp_path / "c2", emit)
    whole = (tmp_path / "whole.csv").read_text()
    assert (tmp_path / "resumed.csv").read_text() == whole
    assert len(whole.splitlines()) > 2


def test_a_checkpoint_of_other_settings_is_refused(tmp_path):
    SparkCheckpoint(str(tmp_path), {"program": "a"}).load()
    with pytest.raises(UserError, match="different program"):
        SparkCheckpoint(str(tmp_path), {"program": "b"}).load()


def _sgq(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sgq.cli", *args], capture_output=True, text=True, cwd=REPO
    )


BATCHES = 4  # one a day, the last one's state kept


@pytest.fixture(scope="module")
def knows_whole(tmp_path_factory):
    """The stream, the command and the uninterrupted run's output that every killed run below
    is compared with: one Spark run (per test worker), not one per case. The program is a
    closure (`[knows*]`), whose state every batch changes: the commit protocol is the same for
    every program, and SGA Q7's two closures and join took half as long again in Spark jobs
    (the in-process tests above restore a join's and a WSCAN's state)."""
    base = tmp_path_factory.mktemp("knows-whole")
    stream = base / "snb.csv"
    made = _sgq("gen", "snb", "--edges", "300", "--seed", "3", "--days", "4", "-o", str(stream))
    assert made.returncode == 0, made.stderr
    program = str(REPO / "specs" / "queries" / "rpq" / "snb" / "q1.dl")
    common = [program, "--engine", "spark", "-i", str(stream), "--window", "2d", "--emit", "deltas"]
    whole = _sgq("run", *common, "-o", str(base / "whole.csv"))
    assert whole.returncode == 0, whole.stderr
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
