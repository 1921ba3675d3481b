"""What the Spark engine refuses in its first phase, each with a message and before any
Spark work (spark_engine/refusals.py, sgq/commands/run_spark.py)."""

from __future__ import annotations

import pytest
from sgq.base.errors import UserError
from sgq.spark_engine.batch_grid import BatchGrid
from sgq.spark_engine.refusals import check_supported

import sgq
from sgq.cli import main
from sgq.spark_source import driver_batches


def test_simple_path_atoms_are_refused():
    plan = sgq.compile(text=".window 10\nAnswer(x, y) :- simple [a/b*](x, y).").plan
    with pytest.raises(UserError, match="simple path atoms"):
        check_supported(plan)


def test_a_slide_below_the_floor_is_refused():
    plan = sgq.compile(text=".window 30d\n.slide 1\nAnswer(x, y) :- a+(x, y).").plan
    with pytest.raises(UserError, match="slide of at least 1/1000 of the window"):
        check_supported(plan)
    check_supported(sgq.compile(text=".window 30d\n.slide 1h\nAnswer(x, y) :- a+(x, y).").plan)


def test_a_deletion_line_is_refused_where_it_is_read():
    plan = sgq.compile(text=".window 10\nAnswer(x, y) :- a+(x, y).").plan
    edges = [("1", "2", "a", 0, "+"), ("1", "2", "a", 1, "-")]
    batches = driver_batches(None, edges, BatchGrid.of(plan), frozenset({"a"}), "in.csv", [7])
    with pytest.raises(UserError, match=r"in.csv:7: a deletion \('-' line\)"):
        next(batches)


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--paths"], "does not take --paths"),
        (["--follow"], "--follow reads a directory sgq prepare outputs land in, not a file"),
        (["--rejects", "r.csv"], "takes --rejects only with --follow --idle-flush"),
        (["--on-error", "skip"], "does not take --on-error skip"),
        (["--max-lateness", "5"], "does not take --max-lateness"),
        (["--partitions", "0"], "--partitions: must be a positive integer"),
    ],
)
def test_run_flags_the_spark_engine_does_not_take(tmp_path, capsys, flags, message):
    program = tmp_path / "q.dl"
    program.write_text(".window 10\nAnswer(x, y) :- a+(x, y).\n")
    edges = tmp_path / "e.csv"
    edges.write_text("1,2,a,0\n")
    argv = ["run", str(program), "--engine", "spark", "-i", str(edges), "-o", str(tmp_path / "o")]
    assert main(argv + flags) == 2
    assert message in capsys.readouterr().err


def test_spark_flags_need_the_spark_engine(tmp_path, capsys):
    program = tmp_path / "q.dl"
    program.write_text(".window 10\nAnswer(x, y) :- a+(x, y).\n")
    edges = tmp_path / "e.csv"
    edges.write_text("1,2,a,0\n")
    assert main(["run", str(program), "-i", str(edges), "--partitions", "2"]) == 2
    assert "go with --engine spark" in capsys.readouterr().err
