"""Structural rules: one physical operator per algebra node class; incremental/ never imports
the front end (STYLE.md); every module opens with a docstring; doctests run."""

from __future__ import annotations

import ast
import doctest
import importlib
from pathlib import Path

import pytest
from sgq.incremental.runtime import PHYSICAL
from sgq.sga.algebra import OPERATORS

ROOT = Path(__file__).resolve().parents[2] / "incremental"
MODULES = sorted(p for p in ROOT.rglob("*.py") if p.name != "__init__.py")


def test_every_algebra_operator_has_a_physical_operator():
    missing = [cls.__name__ for cls in OPERATORS if cls not in PHYSICAL]
    assert missing == []


def _imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or ""))
    return names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_datalog_imports_and_a_docstring(path):
    assert not [n for n in _imports(path) if "datalog" in n]
    assert ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_doctests(path):
    name = "sgq.incremental." + ".".join(path.relative_to(ROOT).with_suffix("").parts)
    module = importlib.import_module(name)
    failed, _ = doctest.testmod(module)
    assert failed == 0


def test_api_doctest():
    import sgq.api

    failed, tried = doctest.testmod(sgq.api)
    assert failed == 0 and tried > 0
