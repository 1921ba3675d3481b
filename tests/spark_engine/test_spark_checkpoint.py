"""Exactly-once restarts of the Spark engine from its checkpoint (spark_engine/commits.py), in
process: a run stopped between batches and started again ends with the output file of an
uninterrupted run, byte for byte. The `sgq run` processes killed at each commit step are in
test_spark_killed_runs.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from sgq.base.errors import UserError
from sgq.sga.cost.statistics import collect
from sgq.spark_engine.commits import SparkCheckpoint
from sgq.spark_engine.engine import SparkEngine

import sgq
from sgq.spark_run import SparkRun
from sgq.spark_source import driver_batches

pytestmark = pytest.mark.spark

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
    batches = driver_batches(spark, edges, engine.grid, engine.labels, "test", keys=engine.keys)

    def stopping():
        for n, got in enumerate(batches):
            if n == stop_after:
                raise Crash
            yield got

    SparkRun(engine, str(out), emit, "csv", checkpoint).run(stopping())


def _whole_and_resumed(spark, tmp_path: Path, emit: str, stop_after: int, **runs) -> str:
    """The output of a whole run, asserted equal to that of a run stopped before batch
    `stop_after` and resumed from its checkpoint."""
    _run(spark, tmp_path / "whole.csv", tmp_path / "c1", emit, **runs)
    with pytest.raises(Crash):
        _run(spark, tmp_path / "resumed.csv", tmp_path / "c2", emit, stop_after, **runs)
    _run(spark, tmp_path / "resumed.csv", tmp_path / "c2", emit, **runs)
    whole = (tmp_path / "whole.csv").read_text()
    assert (tmp_path / "resumed.csv").read_text() == whole
    return whole


SEVERAL_LABELS = ".window 4\n.slide 2\nAnswer(x, y) :- a(x, y).\nAnswer(x, y) :- b(x, y).\n"
SEVERAL_EDGES = [("1", "2", "a", 0), ("1", "2", "b", 1), ("2", "3", "b", 2), ("1", "2", "a", 5)]


@pytest.mark.slow
def test_a_wscan_over_several_labels_resumes_exactly_once(spark, tmp_path):
    """The optimizer's WSCAN over a and b (thesis rule 13): its one table restored."""
    spark.conf.set("spark.sql.shuffle.partitions", "1")
    plan = sgq.compile(text=SEVERAL_LABELS, statistics=collect(SEVERAL_EDGES)).plan
    assert [n.labels for n in plan.nodes()] == [("a", "b")]
    runs = dict(program=SEVERAL_LABELS, edges=SEVERAL_EDGES, optimize=True)
    whole = _whole_and_resumed(spark, tmp_path, "intervals", 1, **runs)
    assert len(whole.splitlines()) > 2


@pytest.mark.slow
@pytest.mark.parametrize("emit", ["intervals", "deltas"])
def test_a_run_stopped_between_batches_resumes_exactly_once(spark, tmp_path, emit):
    spark.conf.set("spark.sql.shuffle.partitions", "1")
    whole = _whole_and_resumed(spark, tmp_path, emit, 1)
    assert len(whole.splitlines()) > 2


#: reified edges (a shared property variable): the tables hold encoded values and edges
SHARED = ".window 4\n.slide 2\nAnswer(x, y) :- a(x, z){k: v}, a(z, y){k: v}.\n"
SHARED_EDGES = [
    ("1", "2", "a", 0, "+", {"k": 1}),
    ("2", "3", "a", 1, "+", {"k": 1.0}),
    ("3", "1", "a", 2, "+", {"k": "x"}),
    ("2", "3", "a", 3, "+", {"k": "x"}),
    ("1", "2", "a", 5, "+", {"k": 1}),
    ("3", "1", "a", 5, "+", {"k": "x"}),
]


@pytest.mark.slow
def test_a_run_with_properties_resumes_exactly_once(spark, tmp_path):
    spark.conf.set("spark.sql.shuffle.partitions", "1")
    whole = _whole_and_resumed(spark, tmp_path, "deltas", 2, program=SHARED, edges=SHARED_EDGES)
    assert ",1,3,Answer" in whole and ",2,1,Answer" in whole


def test_a_checkpoint_of_other_settings_is_refused(tmp_path):
    SparkCheckpoint(str(tmp_path), {"program": "a"}).load()
    with pytest.raises(UserError, match="different program"):
        SparkCheckpoint(str(tmp_path), {"program": "b"}).load()
