"""Simple paths in batch (specs/semantics.md §4a): `simple p+`, `simple p*`, `simple [R]`.

The oracle's own route, unlike the engine's search (incremental/state/simple_search.py): a
breadth-first expansion of partial simple paths over a product graph (the graphs of
`recursion.py`: nodes `(v, q)`), one step per round, each partial path carried with the set
of vertices it visited (a sorted array) and extended only to an unvisited vertex. Two partial
paths with the same root, end node and visited set extend alike, so each is kept once. A
simple path has at most as many steps as the window has vertices, so the expansion ends after
at most that many rounds (it stops as soon as no partial path grows).

The result has the shape of a closed product graph, `(rid, cid, tau, a, b)` with `a` the root
node and `b` the end node of some simple path of one or more steps, so the callers read pairs
from it as from a closure (`closure_pairs`, `path_pairs`). The root is never an end: `(x, x)`
comes only from the empty path, which the caller adds for a nullable regex.
"""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

CKEY = ["rid", "cid", "tau"]


def simple_expansion(edges: DataFrame) -> DataFrame:
    """`(rid, cid, tau, a, b)`: root node `a` and end node `b` of every simple path of one or
    more steps over `edges` (product-graph edges per (rid, cid, tau))."""
    edges = edges.select(*CKEY, "a", "b").distinct().localCheckpoint(eager=True)
    first = edges.filter(F.col("a.v") != F.col("b.v")).select(
        *CKEY,
        F.col("a").alias("root"),
        F.col("b").alias("end"),
        F.array_sort(F.array(F.col("a.v"), F.col("b.v"))).alias("seen"),
    )
    frontier = first.distinct().localCheckpoint(eager=True)
    reached = frontier.select(*CKEY, "root", "end")
    step = edges.select(*CKEY, F.col("a").alias("end"), F.col("b").alias("next"))
    while True:
        grown = (
            frontier.join(step, on=CKEY + ["end"])
            .filter(~F.array_contains(F.col("seen"), F.col("next.v")))
            .select(
                *CKEY,
                "root",
                F.col("next").alias("end"),
                F.array_sort(F.array_union(F.col("seen"), F.array(F.col("next.v")))).alias("seen"),
            )
            .distinct()
            .localCheckpoint(eager=False)
        )
        if grown.count() == 0:
            break
        reached = reached.unionByName(grown.select(*CKEY, "root", "end"))
        frontier = grown
    return reached.distinct().select(*CKEY, F.col("root").alias("a"), F.col("end").alias("b"))
