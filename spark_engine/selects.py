"""WSCAN, FILTER, RENAME, ATTRIBUTE, UNION and VERTICES as narrow selects over a batch
(thesis Defs 30-32; specs/semantics.md §2, §4c, §6).

FILTER, RENAME and ATTRIBUTE keep no state: a filter keeps or drops whole keys, and a
renaming or an attribute of reified edges maps keys one to one, so their live tuples and
delta are their input's, mapped. WSCAN, UNION and
VERTICES coalesce what they select into their own table (spark_engine/coverage.py): WSCAN the
batch's edges of its label (or labels, rule 13), each valid from its own instant to the
batch's one exp; UNION its inputs' deltas (another input may cover the key already); VERTICES
both endpoints of its inputs' deltas as `(v, v)` tuples, valid while some edge at `v` is.
"""

from __future__ import annotations

from functools import reduce

from pyspark.sql import DataFrame

from ..sga.algebra import Attribute, Filter, Rename, Union, Vertices, WScan
from .batch_context import BatchContext
from .property_values import column, part_sql, reified_sql, test_sql
from .relation import Relation
from .sql_text import literal


def wscan(node: WScan, ctx: BatchContext) -> Relation:
    """The batch's edges of `node.label` (of every label in `node.labels`, thesis rule 13:
    one window of one ω) that satisfy its conditions (if the optimizer put a FILTER's there,
    thesis rule 12), valid until the batch's exp for that window. The Spark engine takes no
    `-` edges (refusals.py), so a scan over several labels needs no coverage per label: a key
    two labels give coalesces into one row, as UNION's would.

    A scan with property tests (specs/semantics.md §4c) keeps the edges of its `source` that
    pass them; one that `carries` keys, those that have them, as tuples `(x, e)` of the
    reified edges (spark_engine/property_values.py). Insert-only streams need no identity
    per edge: a key's tuples coalesce as any scan's."""
    read = [name for name in node.reads if name in ctx.labels]
    if not read:
        return ctx.carry(node)
    exp = ctx.grid.expiry(read[0], ctx.batch)
    if len(read) == 1:
        edges = ctx.edges.filter(f"label = {literal(read[0])}")
    else:
        edges = ctx.edges.filter(f"label IN ({', '.join(literal(name) for name in read)})")
    tests = [_condition(c) for c in node.conditions] + [test_sql(t) for t in node.properties]
    tests += [f"{column(key)} IS NOT NULL" for key in node.carries]
    if tests:
        edges = edges.filter(" AND ".join(f"({t})" for t in tests))
    trg = f"{reified_sql(node.carries)} AS trg" if node.carries else "trg"
    edges = edges.selectExpr("src", trg, "ts", f"CAST({exp} AS BIGINT) AS exp")
    return ctx.coalesce(node, edges)


def _condition(c) -> str:
    right = literal(str(c.right)) if c.right_const else c.right
    return f"{c.left} {'=' if c.op == '=' else '!='} {right}"


def filter_(node: Filter, ctx: BatchContext) -> Relation:
    """The input's tuples whose endpoints satisfy every condition."""
    test = " AND ".join(f"({_condition(c)})" for c in node.conditions) or "true"
    return ctx.input(node.input).mapped(lambda df: df.filter(test))


def rename(node: Rename, ctx: BatchContext) -> Relation:
    """The input relabelled; `reverse` swaps src and trg."""
    if not node.reverse:
        return ctx.input(node.input)
    return ctx.input(node.input).mapped(
        lambda df: df.selectExpr("trg AS src", "src AS trg", "ts", "exp")
    )


def attribute(node: Attribute, ctx: BatchContext) -> Relation:
    """From each reified edge `(x, e)`, `(e, y)` or `(e, value)`: one to one, as RENAME."""
    part = f"{part_sql('trg', node.part)} AS trg"
    return ctx.input(node.input).mapped(lambda df: df.selectExpr("trg AS src", part, "ts", "exp"))


def union_all(frames: list[DataFrame]) -> DataFrame:
    """The rows of every frame (same columns)."""
    return reduce(DataFrame.unionByName, frames)


def union(node: Union, ctx: BatchContext) -> Relation:
    """Every input's delta, coalesced per key."""
    deltas = [d for d in (ctx.input(i).delta for i in node.inputs) if d is not None]
    if not deltas:
        return ctx.carry(node)
    return ctx.coalesce(node, union_all(deltas))


def vertices(node: Vertices, ctx: BatchContext) -> Relation:
    """`(v, v)` for both endpoints of every input delta tuple, on its interval."""
    deltas = [d for d in (ctx.input(i).delta for i in node.inputs) if d is not None]
    if not deltas:
        return ctx.carry(node)
    ends = [
        d.selectExpr(f"{end} AS src", f"{end} AS trg", "ts", "exp")
        for d in deltas
        for end in ("src", "trg")
    ]
    return ctx.coalesce(node, union_all(ends))
