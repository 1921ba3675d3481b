"""A batch output directory (`sgq run --engine spark -o DIR/`, spark_engine/batch_output.py)
read back in order: batches by number, each batch's sorted part files merged; and, with
Spark, the same rows as the single output file for both `--emit` modes."""

from __future__ import annotations

from pathlib import Path

import pytest
from sgq.base.errors import UserError
from sgq.spark_engine.batch_output import is_directory, read_rows

from sgq.cli import main
from sgq.generators import generate, write_csv

REPO = Path(__file__).resolve().parents[2]
Q6 = REPO / "specs" / "queries" / "sga" / "so" / "q6.dl"


def _part(directory: Path, name: str, lines: list[str], header: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_text("".join(f"{x}\n" for x in [header, *lines]))


def test_batches_in_number_order_and_part_files_merged(tmp_path, capsys):
    head = "time,op,src,trg,label"
    _part(tmp_path / "batch=10", "part-00000-a.csv", ["20,+,b,c,A"], head)
    _part(tmp_path / "batch=2", "part-00000-a.csv", ["4,+,a,b,A", "4,-,a,a,A", "9,+,c,d,A"], head)
    _part(tmp_path / "batch=2", "part-00001-a.csv", ["4,+,b,b,A", "10,+,a,b,A"], head)
    _part(tmp_path / "batch=2", "part-00002-a.csv", [], head)
    (tmp_path / "_SUCCESS").write_text("")
    fields, rows = read_rows(str(tmp_path))
    assert fields == tuple(head.split(","))
    assert [",".join(r) for r in rows] == [
        "4,+,a,b,A",
        "4,+,b,b,A",
        "4,-,a,a,A",
        "9,+,c,d,A",
        "10,+,a,b,A",  # by number, not text
        "20,+,b,c,A",
    ]
    assert main(["results", str(tmp_path)]) == 0
    assert capsys.readouterr().out.splitlines()[:2] == [head, "4,+,a,b,A"]


def test_what_is_a_directory_output_and_what_is_not(tmp_path):
    assert is_directory("out/") and is_directory(str(tmp_path))
    assert not is_directory(str(tmp_path / "out.csv"))
    with pytest.raises(UserError, match="not a directory of batch output"):
        read_rows(str(tmp_path / "nothing"))


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.parametrize("emit", ["deltas", "intervals"])
def test_a_directory_holds_the_single_files_rows(spark, tmp_path, emit):
    stream = tmp_path / "so.csv"
    with open(stream, "w") as out:
        write_csv(generate("so", 300, seed=11, days=4), out)
    argv = ["run", str(Q6), "--window", "2d", "-i", str(stream), "--emit", emit]
    argv += ["--engine", "spark", "--partitions", "2", "--no-progress"]
    assert main([*argv, "-o", str(tmp_path / "single.csv")]) == 0
    (tmp_path / "out" / "batch=99").mkdir(parents=True)  # an earlier run's: removed
    assert main([*argv, "-o", str(tmp_path / "out")]) == 0
    assert not (tmp_path / "out" / "batch=99").exists()
    assert main(["results", str(tmp_path / "out"), "-o", str(tmp_path / "merged.csv")]) == 0
    single = (tmp_path / "single.csv").read_text()
    assert (tmp_path / "merged.csv").read_text() == single
    assert len(single.splitlines()) > 50
