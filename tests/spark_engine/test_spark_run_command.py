"""`sgq run --engine spark` end to end: the same output files as the single-process engine
for an edge file and for the Parquet directory of `sgq prepare`, and a progress line per
batch."""

from __future__ import annotations

from pathlib import Path

import pytest
from sgq.sga.algebra import OPERATORS, BoundPath
from sgq.spark_engine.physical import PROGRAMS
from spark_engine_support import coverage, interval_rows

from sgq.cli import main
from sgq.generators import generate, write_csv

REPO = Path(__file__).resolve().parents[2]
Q6 = REPO / "specs" / "queries" / "sga" / "so" / "q6.dl"


def test_every_algebra_node_has_a_spark_program():
    # a bound PATH runs as its PATH (SparkEngine unbinds it: sga/rewrite/bind_path_sources.py)
    assert set(PROGRAMS) == set(OPERATORS) - {BoundPath}


@pytest.mark.spark
@pytest.mark.slow
def test_an_edge_file_and_its_prepared_directory_give_the_engine_output(spark, tmp_path, capsys):
    stream = tmp_path / "so.csv"
    with open(stream, "w") as out:
        write_csv(generate("so", 400, seed=11, days=5), out)
    assert main(["prepare", str(stream), "-o", str(tmp_path / "clean")]) == 0
    common = [str(Q6), "--window", "2d", "--no-progress"]
    for emit in ("deltas", "intervals"):
        ref = tmp_path / f"ref-{emit}.csv"
        assert main(["run", *common, "-i", str(stream), "-o", str(ref), "--emit", emit]) == 0
        for source in (stream, tmp_path / "clean"):
            got = tmp_path / f"{source.name}-{emit}.csv"
            argv = ["run", *common, "-i", str(source), "-o", str(got), "--emit", emit]
            assert main([*argv, "--engine", "spark", "--partitions", "2"]) == 0
            if emit == "deltas":
                assert got.read_bytes() == ref.read_bytes()
            else:
                assert coverage(interval_rows(got)) == coverage(interval_rows(ref))
    assert "Spark engine on local" in capsys.readouterr().err


@pytest.mark.spark
@pytest.mark.slow
def test_the_progress_line_of_every_batch(spark, tmp_path, capsys):
    stream = tmp_path / "so.csv"
    with open(stream, "w") as out:
        write_csv(generate("so", 100, seed=2, days=3), out)
    argv = ["run", str(Q6), "--window", "2d", "-i", str(stream), "-o", str(tmp_path / "o.csv")]
    assert main([*argv, "--engine", "spark"]) == 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("batch ")]
    assert len(lines) == 3
    assert all(" edges, " in x and " closure rounds, " in x and "state " in x for x in lines)


@pytest.mark.spark
@pytest.mark.slow
def test_an_edge_whose_window_ends_past_int64_is_a_message_on_either_route(spark, tmp_path, capsys):
    # specs/semantics.md §7: the single-process engine's message, for an edge file (read on
    # the driver, at its line) and for its prepared directory (read by Spark), before any batch
    stream = tmp_path / "huge.csv"
    stream.write_text("src,trg,label,ts\n1,2,a2q,10\n2,3,a2q,9223372036854775000\n")
    assert main(["prepare", str(stream), "-o", str(tmp_path / "clean")]) == 0
    capsys.readouterr()
    why = "time 9223372036854775000 is after 9223372036854633599, the last time this program"
    # (Spark names the prepared directory without the row: it finds the time by a filter)
    for source, alone_at, spark_at in (
        (stream, f"{stream}:3: ", f"{stream}:3: "),
        (tmp_path / "clean", "clean:2: ", "clean: "),
    ):
        argv = ["run", str(Q6), "--window", "2d", "-i", str(source), "-o", str(tmp_path / "o")]
        assert main(argv) == 2
        alone = capsys.readouterr().err
        assert alone_at + why in alone, alone
        assert main([*argv, "--engine", "spark"]) == 2
        err = capsys.readouterr().err
        assert spark_at + why in err and "Traceback" not in err, err
        assert "batch " not in err
