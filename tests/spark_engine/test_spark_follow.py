"""`sgq run --engine spark --follow DIR` (sgq/spark_follow.py): a landing directory filled
output by output while the streaming query runs gives the single-process engine's results
(interval coverage and deltas), also across a kill in the window between our commit of a
micro-batch and Spark's; what lands out of order is read, refused or dropped as the
single-process `--follow` does."""

from __future__ import annotations

import csv
import os
from pathlib import Path
from types import SimpleNamespace

import pytest
from sgq.base.errors import UserError
from spark_engine_support import coverage, delta_rows, flat, interval_rows

import sgq
from sgq.evaluation import Evaluation
from sgq.generators import generate
from sgq.parquet_input import MANIFEST
from sgq.spark_follow import FollowRun
from sgq.spark_landing import _Reader

DAY = 86400
#: a closure joined with two labels (the recentLiker rule of snb Q7): few Spark jobs a
#: batch (every operator is tested in test_spark_vs_engine.py; here the stream around it)
PROGRAM = """\
.window 2d
.slide 1d
.output RL
RL(x, y) :- knows+(x, y), likes(x, m), hasCreator(m, y).
"""


def _land(landing: Path, name: str, edges, finished: bool = True) -> None:
    """One `sgq prepare` output: time-sorted Parquet, the manifest written last."""
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq

    root = landing / name
    os.makedirs(root / "edges")
    cols = list(zip(*edges)) if edges else [()] * 5
    table = pa.table(
        {
            "src": pa.array(cols[0], pa.string()),
            "trg": pa.array(cols[1], pa.string()),
            "label": pa.array(cols[2], pa.string()),
            "ts": pa.array(cols[3], pa.int64()),
            "op": pa.array(cols[4] if len(cols) > 4 else ["+"] * len(edges), pa.string()),
        }
    )
    pq.write_table(table, root / "edges" / "part-00000.parquet")
    if finished:
        manifest = {"format": "sgq-prepared-1", "edges": ["edges/part-00000.parquet"]}
        (root / MANIFEST).write_text(json.dumps(manifest))


# ---- no Spark: which outputs are read, and in what order


def test_outputs_are_taken_in_name_order_up_to_an_unfinished_one(tmp_path):
    _land(tmp_path, "2024-01-02", [("a", "b", "x", 5)])
    _land(tmp_path, "2024-01-01", [("a", "b", "x", 1)])
    _land(tmp_path, "2024-01-03", [("a", "b", "x", 9)], finished=False)
    _land(tmp_path, "2024-01-04", [("a", "b", "x", 12)])
    reader = _Reader(str(tmp_path))
    first = reader.latestOffset(reader.initialOffset())
    assert first == {"after": "2024-01-02", "names": ["2024-01-01", "2024-01-02"]}
    assert reader.latestOffset(first) == first  # 01-03 has not finished: nothing new
    (tmp_path / "2024-01-03" / MANIFEST).write_text('{"edges": []}')
    second = reader.latestOffset(first)
    assert second["names"] == ["2024-01-03", "2024-01-04"]
    # a micro-batch run again reads what its offset names, whatever landed since
    _land(tmp_path, "2024-01-03b", [("a", "b", "x", 10)])
    (part,) = reader.partitions(first, second)
    assert [row for row in reader.read(part)] == [("2024-01-03",), ("2024-01-04",)]


def _landing_reader(tmp_path, rejects=None) -> FollowRun:
    """A FollowRun that only reads outputs (no engine, no query)."""
    follow = FollowRun(SimpleNamespace(engine=None), str(tmp_path), "unused")
    if rejects is not None:
        from sgq.rejects import Rejects

        follow.rejects = Rejects(str(rejects))
        follow.reorder.on_late = follow.rejects.late_edge
    return follow


def test_an_output_that_goes_back_in_time_stops_the_run_at_its_row(tmp_path):
    _land(tmp_path, "1", [("a", "b", "x", 5), ("a", "b", "x", 8)])
    _land(tmp_path, "2", [("a", "b", "x", 8), ("b", "c", "x", 8), ("c", "d", "x", 9)])
    follow = _landing_reader(tmp_path)
    follow._land("1")
    follow._land("2")  # starts at the last time read: in order
    _land(tmp_path, "3", [("a", "b", "x", 9), ("a", "b", "x", 10)])
    follow._land("3")
    _land(tmp_path, "4", [("a", "b", "x", 4), ("a", "b", "x", 11)])
    with pytest.raises(UserError, match=r"4:1: time 4 is earlier than time 10 seen before"):
        follow._land("4")


def test_after_an_idle_flush_edges_of_the_flushed_batch_are_dropped_as_late(tmp_path):
    _land(tmp_path, "1", [("a", "b", "x", 5)])
    _land(tmp_path, "2", [("a", "b", "x", 3), ("a", "b", "x", 19), ("a", "b", "x", 21)])
    follow = _landing_reader(tmp_path, rejects=tmp_path / "rejects.csv")
    follow._land("1")
    follow.reorder.floor = 20  # an idle flush ran the batch [10, 20)
    follow._land("2")
    follow.rejects.close()
    with open(tmp_path / "rejects.csv", newline="") as handle:
        lines = list(csv.reader(handle))
    assert lines == [
        ["line", "reason", "text"],
        ["1", "time 3 is at or before time 19, already flushed as complete; dropped", "a,b,x,3,+"],
        [
            "2",
            "time 19 is at or before time 19, already flushed as complete; dropped",
            "a,b,x,19,+",
        ],
    ]
    assert follow.reorder.high == 21 and follow.held[-1]["first"] == 3


# ---- with Spark


def _edges(seed: int) -> list[tuple]:
    return [tuple(e) for e in generate("snb", 240, seed=seed, days=3)]


def _outputs(edges) -> list[list[tuple]]:
    """Three outputs cut inside batches (a day each): a batch spans two outputs."""
    cuts = [0, len(edges) // 3 + 7, 2 * len(edges) // 3 + 5, len(edges)]
    return [edges[a:b] for a, b in zip(cuts, cuts[1:])]


def _follow(spark, query, tmp_path, out, emit, ckpt=None) -> FollowRun:
    from sgq.spark_engine.commits import SparkCheckpoint
    from sgq.spark_engine.engine import SparkEngine

    from sgq.spark_run import SparkRun

    checkpoint = None
    if ckpt is not None:
        checkpoint = SparkCheckpoint(str(ckpt), {"program": PROGRAM, "emit": emit})
    run = SparkRun(SparkEngine(query.plan, spark), str(out), emit, "csv", checkpoint)
    stream = (ckpt / "stream") if ckpt is not None else (tmp_path / "stream")
    return FollowRun(run, str(tmp_path / "landing"), str(stream))


@pytest.mark.spark
@pytest.mark.slow
def test_a_landing_directory_filled_step_by_step_gives_the_engine_results(spark, tmp_path):
    spark.conf.set("spark.sql.shuffle.partitions", "2")
    query = sgq.compile(text=PROGRAM)
    edges = _edges(seed=5)
    (tmp_path / "landing").mkdir()
    follow = _follow(spark, query, tmp_path, tmp_path / "out.csv", "intervals")
    follow.start()
    try:
        for n, part in enumerate(_outputs(edges)):
            _land(tmp_path / "landing", f"2024-01-0{n + 1}", part)
            follow.process_available()
            # every batch before the one of the last time read has run, not that one
            assert follow.run.commit.batch == follow.engine.grid.batch_of(part[-1][3]) - 1
    finally:
        follow.stop()  # no checkpoint: the open batch runs too
    reference = query.engine(history=False)
    reference.push_batch(edges)
    end = follow.engine.grid.batch(follow.run.commit.batch).end
    reference.advance(end)
    assert coverage(interval_rows(tmp_path / "out.csv")) == coverage(reference.drain_rows())
    assert follow.run.batches == 3 and follow.run.commit.edges == len(edges)


class Crash(Exception):
    """Stands for a process killed at a kill point."""


class _KillAt:
    def __init__(self, kind: str, count: int) -> None:
        self.kind, self.left = kind, count

    def point(self, kind: str, before=None) -> None:
        if kind == self.kind:
            self.left -= 1
            if self.left == 0:
                raise Crash(kind)


@pytest.mark.spark
@pytest.mark.slow
def test_a_kill_between_our_commit_and_sparks_resumes_exactly_once(spark, tmp_path):
    spark.conf.set("spark.sql.shuffle.partitions", "1")
    query = sgq.compile(text=PROGRAM)
    edges = _edges(seed=8)
    outputs = _outputs(edges)
    landing, out, ckpt = tmp_path / "landing", tmp_path / "out.csv", tmp_path / "ckpt"
    landing.mkdir()
    follow = _follow(spark, query, tmp_path, out, "deltas", ckpt)
    follow.run.ckpt.kill = _KillAt("stream", 2)  # taken and committed by us, not by Spark
    follow.start()
    _land(landing, "2024-01-01", outputs[0])
    follow.process_available()
    _land(landing, "2024-01-02", outputs[1])
    with pytest.raises(Crash):
        follow.process_available()
    with pytest.raises(Crash):  # the error that ended the query, again
        follow.stop()
    # the same command again: Spark runs micro-batch 1 again, we skip it (taken)
    again = _follow(spark, query, tmp_path, out, "deltas", ckpt)
    again.start()
    assert again.stream == 1 and again.run.resumed
    _land(landing, "2024-01-03", outputs[2])
    again.process_available()
    again.idle_flush()  # the open batch, as --idle-flush runs it
    again.stop()
    evaluation = Evaluation(query, "deltas")
    end = again.engine.grid.batch(again.run.commit.batch).end
    want = flat(evaluation.push(edges) + evaluation.advance(end))
    assert delta_rows(out) == want and len(want) > 20
    assert again.run.commit.edges == len(edges)
