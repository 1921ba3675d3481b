"""Rules in batch: every relation is a DataFrame `(cid, tau, a, b)` holding its pairs at each
change point of each case; a rule body joins its atoms on `(cid, tau)` plus the shared
variables (specs/semantics.md §4, ordinary Datalog set semantics per snapshot).

Constants and repeated variables filter an atom's rows; `_` drops a column; comparisons filter
the joined bindings; the head projects. Several rules with one head are unioned. An atom with
a time variable (`atom@t`) brings the start of each pair (oracle/run_starts.py) as a column
`t_NAME`, and time comparisons filter on those columns (specs/semantics.md §4b).
"""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from sgq.datalog.ast import Anon, Comparison, Const, Rule, Var

KEY = ["cid", "tau"]


def _col_name(var: str) -> str:
    return "v_" + var


def _time_col(name: str) -> str:
    return "t_" + name


def bindings(rel: DataFrame, args, time: str | None = None) -> tuple[DataFrame, list[str]]:
    """The variable bindings one body atom allows: `(cid, tau, v_x, ...)` and the var columns
    (with `time`, `rel` has a `start` column, kept as that time variable's column)."""
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
    if time is not None:
        cols.append(F.col("start").alias(_time_col(time)))
    return rel.select(*KEY, *cols), list(named)


def _term_expr(term):
    if isinstance(term, Const):
        return F.lit(term.value)
    return F.col(_col_name(term.name))


_ORDERS = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "=": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}


def _time_filter(lit: Comparison):
    """`t_left ± d op t_right ± e` over the start columns, each side as written."""
    left = _time_side(lit.left.name, lit.left_offset, lit.left_offset_op)
    right = _time_side(lit.right.name, lit.offset, lit.offset_op)
    return _ORDERS[lit.op](left, right)


def _time_side(name: str, offset, op: str):
    """A start column with a comparison side's duration added (`+`) or taken (`-`)."""
    column = F.col(_time_col(name))
    if offset is None:
        return column
    return column + F.lit(offset.value) if op == "+" else column - F.lit(offset.value)


def evaluate_rule(rule: Rule, atom_relation, starts=None) -> DataFrame:
    """`(cid, tau, a, b)` of the head; `atom_relation(literal)` gives each body atom's pairs,
    `starts(relation)` adds their `start` column (needed for atoms with a time variable)."""
    joined: DataFrame | None = None
    have: set[str] = set()
    times = {
        lit.time for lit in rule.body if not isinstance(lit, Comparison) and lit.time is not None
    }
    for lit in rule.body:
        if isinstance(lit, Comparison):
            continue
        if lit.time is not None and starts is not None:
            frame, names = bindings(starts(atom_relation(lit)), lit.args, lit.time)
        else:
            frame, names = bindings(atom_relation(lit), lit.args)
        if joined is None:
            joined = frame
        else:
            joined = joined.join(frame, on=KEY + [n for n in names if n in have], how="inner")
        have.update(names)
    assert joined is not None, "a checked rule has at least one body atom"
    for lit in rule.body:
        if isinstance(lit, Comparison) and isinstance(lit.left, Var) and lit.left.name in times:
            joined = joined.filter(_time_filter(lit))
        elif isinstance(lit, Comparison):
            left, right = _term_expr(lit.left), _term_expr(lit.right)
            joined = joined.filter(left == right if lit.op == "=" else left != right)
    x, y = rule.head.args
    return joined.select(*KEY, _term_expr(x).alias("a"), _term_expr(y).alias("b"))
