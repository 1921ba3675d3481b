"""Golden error cases: every folder of tests/cases/errors/ holds `query.dl` and the exact
`expected.err` that `sgq check query.dl` prints (Soufflé's tests/semantic/ habit). An optional
`args` file adds command-line options (e.g. `--slide 2h`). Adding a case costs one folder."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from sgq.cli import main

CASES = Path(__file__).resolve().parent.parent / "cases" / "errors"
FOLDERS = sorted(p for p in CASES.iterdir() if (p / "query.dl").is_file())


def test_cases_exist():
    assert len(FOLDERS) >= 40
    missing = [p.name for p in FOLDERS if not (p / "expected.err").is_file()]
    assert not missing


@pytest.mark.parametrize("folder", FOLDERS, ids=[p.name for p in FOLDERS])
def test_error_case(folder: Path, monkeypatch, capsys):
    monkeypatch.chdir(folder)
    extra = shlex.split((folder / "args").read_text()) if (folder / "args").is_file() else []
    code = main(["check", "query.dl", *extra])
    out, err = capsys.readouterr()
    assert (code, out) == (1, "")
    assert err == (folder / "expected.err").read_text(encoding="utf-8")


def test_every_message_has_a_golden_case():
    """Each template of datalog/errors.py's table shows up in some expected.err."""
    from sgq.datalog.errors import ERROR_TABLE, message_pattern

    messages = [
        line.split(": error: ", 1)[1]
        for folder in FOLDERS
        for line in (folder / "expected.err").read_text(encoding="utf-8").splitlines()
        if ": error: " in line
    ]
    uncovered = [
        t for t, _ in ERROR_TABLE if not any(message_pattern(t).fullmatch(m) for m in messages)
    ]
    assert not uncovered
