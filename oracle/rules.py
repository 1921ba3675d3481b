"""Rules in batch: every relation is a DataFrame `(cid, tau, a, b)` holding its pairs at each
change point of each case; a rule body joins its atoms on `(cid, tau)` plus the shared
variables (specs/semantics.md §4, ordinary Datalog set semantics per snapshot).

Constants and repeated variables filter an atom's rows; `_` drops a column; comparisons filter
the joined bindings; the head projects. Several rules with one head are unioned. An atom with
a time variable (`atom@t`) brings the start of each pair (oracle/run_starts.py) as a column
`t_NAME`, and time comparisons filter on those columns (specs/semantics.md §4b).

An atom with braces comes with one value column per property its braces name (`pk0`, ...,
oracle/properties.py); a property variable becomes a column `p_NAME`, so a variable bound by
two atoms joins on it (typed equality of value structs), and property comparisons filter on
those columns (specs/semantics.md §4c).
"""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from sgq.datalog.ast import Anon, Comparison, Const, Rule, Var, property_value, property_variables

from .properties import COMPARISONS, holds, literal, shifted

KEY = ["cid", "tau"]


def _col_name(var: str) -> str:
    return "v_" + var


def _time_col(name: str) -> str:
    return "t_" + name


def _prop_col(name: str) -> str:
    return "p_" + name


def seen_keys(props) -> list[str]:
    """The properties an atom's braces name, once each in order: its value columns `pk0`..."""
    return list(dict.fromkeys(arg.key for arg in props))


def bindings(
    rel: DataFrame, args, time: str | None = None, props=()
) -> tuple[DataFrame, list[str]]:
    """The variable bindings one body atom allows: `(cid, tau, v_x, ..., p_v, ...)` and the
    var columns (with `time`, `rel` has a `start` column, kept as that time variable's
    column; with `props`, the braces, its value columns `pk0`... bind property variables)."""
    named: dict[str, str] = {}
    keys = seen_keys(props)
    pairs = list(zip(("a", "b"), args))
    pairs += [(f"pk{keys.index(arg.key)}", arg.value) for arg in props]
    for column, term in pairs:
        if isinstance(term, Const) and column.startswith("pk"):
            rel = rel.filter(F.col(column) == literal(property_value(term)))
        elif isinstance(term, Const):
            rel = rel.filter(F.col(column) == F.lit(term.value))
        elif isinstance(term, Var):
            name = (_prop_col if column.startswith("pk") else _col_name)(term.name)
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


def _time_filter(lit: Comparison):
    """`t_left ± d op t_right ± e` over the start columns, each side as written."""
    left = _time_side(lit.left.name, lit.left_offset, lit.left_offset_op)
    right = _time_side(lit.right.name, lit.offset, lit.offset_op)
    return COMPARISONS[lit.op](left, right)


def _prop_filter(lit: Comparison):
    """`left ± n op right ± m` over property value columns and constants, each side as
    written (oracle/properties.py `holds`)."""
    left = shifted(_prop_expr(lit.left), lit.left_offset, lit.left_offset_op)
    right = shifted(_prop_expr(lit.right), lit.offset, lit.offset_op)
    return holds(left, lit.op, right)


def _prop_expr(term):
    if isinstance(term, Const):
        return literal(property_value(term))
    return F.col(_prop_col(term.name))


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
        braces = getattr(lit, "props", ())
        if lit.time is not None and starts is not None:
            frame, names = bindings(starts(atom_relation(lit)), lit.args, lit.time, braces)
        else:
            frame, names = bindings(atom_relation(lit), lit.args, props=braces)
        if joined is None:
            joined = frame
        else:
            joined = joined.join(frame, on=KEY + [n for n in names if n in have], how="inner")
        have.update(names)
    assert joined is not None, "a checked rule has at least one body atom"
    props = property_variables(rule)
    for lit in rule.body:
        if isinstance(lit, Comparison) and isinstance(lit.left, Var) and lit.left.name in times:
            joined = joined.filter(_time_filter(lit))
        elif isinstance(lit, Comparison) and any(
            isinstance(t, Var) and t.name in props for t in (lit.left, lit.right)
        ):
            joined = joined.filter(_prop_filter(lit))
        elif isinstance(lit, Comparison):
            left, right = _term_expr(lit.left), _term_expr(lit.right)
            joined = joined.filter(left == right if lit.op == "=" else left != right)
    x, y = rule.head.args
    return joined.select(*KEY, _term_expr(x).alias("a"), _term_expr(y).alias("b"))
