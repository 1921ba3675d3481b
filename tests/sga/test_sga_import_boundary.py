"""sga/translate.py is the only module of sga/ that imports the datalog package (STYLE.md:
one bridge between neighbouring representations)."""

from __future__ import annotations

import ast
from pathlib import Path

SGA = Path(__file__).resolve().parents[2] / "sga"


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or ""))
    return names


def test_only_translate_imports_datalog():
    offenders = []
    for path in sorted(SGA.rglob("*.py")):
        if any("datalog" in name for name in imported_modules(path)):
            offenders.append(str(path.relative_to(SGA)))
    assert offenders == ["translate.py"]
