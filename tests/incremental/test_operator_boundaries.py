"""State owns its data: no physical operator reaches into another structure.

Walks the AST of every module in incremental/operators/ and fails on
- `other._x`: an underscored attribute of anything but `self` (or `cls`), except `_check`,
  the invariant hook every operator and state class offers to tests;
- `x[N]` with an integer literal N: state entries are read by field name (`entry.exp`) and an
  operator's own tuples are unpacked by name (`ts, exp = got`), never by position;
- a store into another object: `other.field = ...` (or `+=`), or `self.a.b[k] = ...` /
  `del self.a.b[k]` into a container another object holds.

The checker is tested on snippets first, so the scan of the tree can fail.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

OPERATORS = pathlib.Path(__file__).resolve().parents[2] / "incremental" / "operators"
ALLOWED_PRIVATE = {"_check"}


def _owner_is_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def _store_into_other(target: ast.expr) -> bool:
    """A store target that writes another object's field or a container it holds."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return any(_store_into_other(t) for t in target.elts)
    if isinstance(target, ast.Starred):
        return _store_into_other(target.value)
    if isinstance(target, ast.Attribute):
        return not _owner_is_self(target.value)
    if isinstance(target, ast.Subscript):
        base = target.value
        while isinstance(base, ast.Subscript):
            base = base.value
        # self.x[k] (own container) and local[k] are fine; self.a.b[k] and other.b[k] are not
        return isinstance(base, ast.Attribute) and not _owner_is_self(base.value)
    return False


def violations(source: str, filename: str = "<snippet>") -> list[str]:
    """Every boundary violation in `source`, as `file:line: what`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        what = None
        if isinstance(node, ast.Attribute):
            name = node.attr
            private = name.startswith("_") and not name.startswith("__")
            if private and name not in ALLOWED_PRIVATE and not _owner_is_self(node.value):
                what = f"reads another object's private {ast.unparse(node)}"
        elif isinstance(node, ast.Subscript):
            index = node.slice
            if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
                index = index.operand
            if isinstance(index, ast.Constant) and isinstance(index.value, int):
                what = f"reads by position {ast.unparse(node)}"
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                if _store_into_other(target):
                    what = f"writes into another object: {ast.unparse(target)}"
        if what:
            found.append(f"{filename}:{node.lineno}: {what}")
    return found


@pytest.mark.parametrize(
    "snippet",
    [
        "state._reread(keys)",
        "x = entry[1]",
        "x = got[-1]",
        "node[0], node[1] = ts, exp",
        "self.state.count += 1",
        "op.out = self.out",
        "self.state.trees[x] = {}",
        "del index.by_src[s]",
    ],
)
def test_the_checker_catches(snippet):
    assert violations(snippet), snippet


@pytest.mark.parametrize(
    "snippet",
    [
        "self._plan(None)",
        "self.out._check()",
        "ts, exp = got",
        "e = entry.exp",
        "self.fanout = fanout",
        "self.plans[i] = plan",
        "frontier[row] = (ts, exp)",
        "row = index.successors(v)",
    ],
)
def test_the_checker_allows(snippet):
    assert not violations(snippet), violations(snippet)


def test_no_operator_touches_another_structures_internals():
    files = sorted(OPERATORS.glob("*.py"))
    assert len(files) >= 8, files
    found = []
    for path in files:
        found += violations(path.read_text(encoding="utf-8"), path.name)
    assert not found, "\n".join(found)
