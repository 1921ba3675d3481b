"""Rules in batch: every relation is a DataFrame `(cid, tau, a, b)` holding its pairs at each
change point of each case; a rule body joins its atoms on `(cid, tau)` plus the shared
variables (specs/semantics.md §4, ordinary Datalog set semantics per snapshot).

Constants and repeated variables filter an atom's rows; `_` drops a column; comparisons filter
the joined bindings; the head projects. Several rules with one head are unioned.
"""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from sgq.datalog.ast import Anon, Comparison, Const, Rule, Var

KEY = ["cid", "tau"]


def _col_name(var: str) -> str:
    return "v_" + var


def bindings(rel: DataFrame, args) -> tuple[DataFrame, list[str]]:
    """The variable bindings one body atom allows: `(cid, tau, v_x, ...)` and the var columns."""
    named: dict[str, str] = {}
    for column, term in zip(("a", "b"), args):
        if isinstance(term, Const):
            rel = rel.filter(F.col(column) == F.lit(term.value))
        elif isinstance(term, Var):
            name = _col_name(term.name)
            if name in named:
                rel = rel.filter(F.col(column) == F.col(named[name]))
            else:
                named[name] = column
        elif not isinstance(term, Anon):
            raise TypeError(f"not a term: {term!r}")
    cols = [F.col(c).alias(n) for n, c in named.items()]
    return rel.select(*KEY, *cols), list(named)


def _term_expr(term):
    if isinstance(term, Const):
        return F.lit(term.value)
    return F.col(_col_name(term.name))


def evaluate_rule(rule: Rule, atom_relation) -> DataFrame:
    """`(cid, tau, a, b)` of the head; `atom_relation(literal)` gives each body atom's pairs."""
    joined: DataFrame | None = None
    have: set[str] = set()
    for lit in rule.body:
        if isinstance(lit, Comparison):
            continue
        frame, names = bindings(atom_relation(lit), lit.args)
        if joined is None:
            joined = frame
        else:
            joined = joined.join(frame, on=KEY + [n for n in names if n in have], how="inner")
        have.update(names)
    assert joined is not None, "a checked rule has at least one body atom"
    for lit in rule.body:
        if isinstance(lit, Comparison):
            left, right = _term_expr(lit.left), _term_expr(lit.right)
            joined = joined.filter(left == right if lit.op == "=" else left != right)
    x, y = rule.head.args
    return joined.select(*KEY, _term_expr(x).alias("a"), _term_expr(y).alias("b"))
