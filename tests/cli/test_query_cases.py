"""Golden query cases (tests/query_cases.py): `sgq run query.dl --input stream.csv` prints
exactly `expected.csv`, and the expected rows are checked too, against the brute-force
reference's snapshot at every change point (tests/snapshot_reference.py), so a golden file
cannot record a wrong answer. Adding a case costs one folder of tests/cases/queries/."""

from __future__ import annotations

from pathlib import Path

import pytest
import snapshot_reference as ref
from query_cases import FOLDERS, edges, expected_validity, snapshot
from sgq.datalog.check import check_text

from sgq.cli import main


def test_cases_exist():
    assert FOLDERS
    assert all((p / name).is_file() for p in FOLDERS for name in ("stream.csv", "expected.csv"))


@pytest.mark.parametrize("folder", FOLDERS, ids=[p.name for p in FOLDERS])
def test_query_case(folder: Path, monkeypatch, capsys):
    monkeypatch.chdir(folder)
    code = main(["run", "query.dl", "--input", "stream.csv"])
    out, _err = capsys.readouterr()
    assert code == 0
    assert out == (folder / "expected.csv").read_text(encoding="utf-8")


@pytest.mark.parametrize("folder", FOLDERS, ids=[p.name for p in FOLDERS])
def test_expected_rows_are_the_reference_snapshots(folder: Path):
    checked = check_text((folder / "query.dl").read_text(encoding="utf-8"), "query.dl")
    stream = edges(folder)
    validity = expected_validity(folder)
    assert validity, "a case whose answer is empty shows nothing"
    for tau in ref.change_points(checked, stream):
        assert snapshot(validity, tau) == ref.output_snapshot(checked, stream, tau), tau
