"""Helpers for the tests of tests/sga: check and translate `.dl` text in one call."""

from __future__ import annotations

from pathlib import Path

from sgq.datalog.ast import literal_preds
from sgq.datalog.check import check_text
from sgq.datalog.checked import CheckedProgram
from sgq.datalog.dependency_graph import first_appearance, topological_order
from sgq.datalog.parser import parse
from sgq.sga.algebra import Plan
from sgq.sga.translate import translate

ROOT = Path(__file__).resolve().parents[2]
SPECS = ROOT / "specs"
GOLDEN = ROOT / "tests" / "cases" / "explain"


def plan_of(text: str, *, window: int | None = 10, slide: int | None = None) -> Plan:
    """The canonical plan of `text` (window 10 unless the text or `window` says otherwise)."""
    if ".window" in text:
        window = None
    return translate(check_text(text, "test.dl", window=window, slide=slide), canonical=True)


def plan_unchecked(text: str, *, window: int | None = 10, outputs=("Answer",)) -> Plan:
    """Translate `text` without running the checker: for translate's refusal of shapes only
    the checker reports to users (datalog/checks/)."""
    program = parse(text, "test.dl")
    heads = {r.head.pred for r in program.rules}
    body = {p for r in program.rules for lit in r.body for p in literal_preds(lit)}
    seen = first_appearance(program)
    checked = CheckedProgram(
        program=program,
        window=window,
        slide=1,
        edb=tuple(p for p in seen if p not in heads and p in body),
        idb=tuple(p for p in seen if p in heads),
        outputs=tuple(outputs),
        order=topological_order(program),
        filename="test.dl",
    )
    return translate(checked, canonical=True)


def spec_programs() -> list[Path]:
    """Every `.dl` program under specs/, sorted."""
    return sorted(SPECS.rglob("*.dl"))


def golden_path(program: Path) -> Path:
    """tests/cases/explain/<path relative to specs/, .txt instead of .dl>."""
    return GOLDEN / program.relative_to(SPECS).with_suffix(".txt")
