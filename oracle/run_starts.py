"""Run starts in batch (specs/semantics.md §4b): what `atom@t` binds, found by the classic
"gaps and islands" query instead of the engine's per-tuple bookkeeping.

A relation holds its pairs at each change point `tau` of each case; between two consecutive
change points nothing changes. Number each case's change points `k = 1, 2, ...`; the change
points at which one pair `(a, b)` is held, taken in order, fall into islands of consecutive
`k`, and `k - (rank of the row among the pair's rows)` is constant on an island. The start of
the pair at `tau` is the first `tau` of its island: the instant since which it has been held
without a break. An atom with braces sees tuples, not pairs: the pair with the values of the
properties its braces name (specs/semantics.md §4c); each such tuple has its own islands.
"""

from __future__ import annotations

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from .rules import KEY


def numbered_points(points: DataFrame) -> DataFrame:
    """`(cid, tau, k)`: each case's change points numbered 1, 2, ... in time order."""
    return (
        points.select(*KEY)
        .distinct()
        .withColumn("k", F.row_number().over(Window.partitionBy("cid").orderBy("tau")))
    )


def with_starts(rel: DataFrame, numbered: DataFrame) -> DataFrame:
    """`rel` `(cid, tau, a, b, ...)` with a column `start`: the first change point of the
    island of consecutive change points at which the tuple has been held up to `tau`. A
    tuple is the row without `(cid, tau)`: the pair, and the property values an atom with
    braces sees (specs/semantics.md §4c), each with its own run."""
    tuple_cols = [c for c in rel.columns if c not in KEY]
    held = Window.partitionBy("cid", *tuple_cols)
    rows = rel.select(*KEY, *tuple_cols).join(numbered, on=KEY)
    island = rows.withColumn("island", F.col("k") - F.row_number().over(held.orderBy("k")))
    first = Window.partitionBy("cid", *tuple_cols, "island")
    return island.withColumn("start", F.min("tau").over(first)).select(*KEY, *tuple_cols, "start")
