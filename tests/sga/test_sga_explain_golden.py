"""Golden `explain` text for every program of specs/ (tests/cases/explain/<name>.txt).

The expected files are exact. After an intended change of the translation or of the text
format, regenerate them with `SGQ_UPDATE_GOLDEN=1 python -m pytest tests/sga -q` and review
the diff.
"""

from __future__ import annotations

import os

import pytest
from sga_support import GOLDEN, SPECS, golden_path, spec_programs
from sgq.datalog.check import check_text
from sgq.sga.explain import explain_text
from sgq.sga.translate import translate

UPDATE = os.environ.get("SGQ_UPDATE_GOLDEN") == "1"
PROGRAMS = spec_programs()


def test_there_are_spec_programs():
    assert len(PROGRAMS) >= 2 * 7 + 11 + 7 + 2


@pytest.mark.parametrize("program", PROGRAMS, ids=[str(p.relative_to(SPECS)) for p in PROGRAMS])
def test_explain_matches_golden(program):
    text = program.read_text(encoding="utf-8")
    actual = explain_text(translate(check_text(text, program.name)))
    golden = golden_path(program)
    if UPDATE:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(actual, encoding="utf-8")
    assert golden.exists(), f"no golden file {golden}; run with SGQ_UPDATE_GOLDEN=1"
    assert actual == golden.read_text(encoding="utf-8")


def test_no_stale_golden_files():
    expected = {golden_path(p) for p in PROGRAMS}
    stale = sorted(str(p) for p in GOLDEN.rglob("*.txt") if p not in expected)
    assert not stale, f"golden files without a spec program: {stale}"
