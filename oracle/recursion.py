"""The only recursion of a Regular Query, in batch: closures `p+`/`p*` and path atoms `[R]`
(specs/semantics.md §4), for every case and change point at once.

Both reduce to one transitive closure over graphs whose nodes are `(v, q)` structs. `p+` is the
closure of p's pairs (q = 0 throughout). `[R]` is the closure of the product graph of the
snapshot relations with the oracle's own automaton (`automaton.py`): `(u, w)` is in `[R]` when
some `((u, q0), (w, qf))` with q0 initial and qf accepting is in that closure. Vertices may
repeat (arbitrary paths). `p*` and nullable `[R]` add `(v, v)` for every v of the active
domain V_τ (done by the caller, `evaluate.py`).

Many closures (of many programs) run as one: rows carry a request id `rid`, and the closure
is per `(rid, cid, tau)`. It iterates semi-naively by doubling: `T' = T ∪ Δ∘T ∪ T∘Δ`,
`Δ' = T' − T`, until Δ is empty. Every round keeps `T ⊇ T_prev∘T_prev`, so after k rounds T
holds every path of up to 2^k steps and the fixpoint is closed under composition. Each round is
one Spark job (the new Δ is checkpointed and counted in one go), because job launches dominate
on small data.
"""

from __future__ import annotations

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from .automaton import Automaton

KEY = ["cid", "tau"]
CKEY = ["rid", "cid", "tau"]


def _fresh(names):
    return [F.col(n).alias(n) for n in names]


def _compose(left: DataFrame, right: DataFrame) -> DataFrame:
    """`{(a, c) | (a, b) ∈ left, (b, c) ∈ right}` per (rid, cid, tau)."""
    # fresh aliases everywhere: `left` and `right` may share lineage (a self-join)
    lhs = left.select(*_fresh(CKEY), F.col("a").alias("a"), F.col("b").alias("m"))
    rhs = right.select(*_fresh(CKEY), F.col("a").alias("m"), F.col("b").alias("c"))
    return lhs.join(rhs, on=CKEY + ["m"]).select(*CKEY, "a", F.col("c").alias("b"))


def joint_closure(edges: DataFrame, materialized: bool = False) -> DataFrame:
    """`(rid, cid, tau, a, b)` joined by one or more steps of `edges` of the same
    `(rid, cid, tau)`. `materialized`: `edges` is already distinct and checkpointed."""
    total = edges.select(*CKEY, "a", "b")
    if not materialized:
        total = total.distinct().localCheckpoint(eager=True)
    delta = total
    while True:
        step = _compose(delta, total).unionByName(_compose(total, delta)).distinct()
        # lazily checkpointed: the count below both materialises it and cuts its lineage
        new = step.join(total, on=CKEY + ["a", "b"], how="left_anti").localCheckpoint(eager=False)
        if new.count() == 0:
            return total
        total = total.unionByName(new)
        delta = new


def closure_edges(rel: DataFrame) -> DataFrame:
    """A relation `(cid, tau, a, b)` as closure input: nodes `(v, 0)`."""
    return rel.select(
        *KEY,
        F.struct(F.col("a").alias("v"), F.lit(0).alias("q")).alias("a"),
        F.struct(F.col("b").alias("v"), F.lit(0).alias("q")).alias("b"),
    )


def closure_pairs(closed: DataFrame) -> DataFrame:
    """Back from nodes to vertex pairs `(cid, tau, a, b)`."""
    return closed.select(*KEY, F.col("a.v").alias("a"), F.col("b.v").alias("b"))


def product_edges(spark: SparkSession, auto: Automaton, relation) -> DataFrame:
    """The product of the snapshot relations (`relation(label)`) with the automaton: edges
    `((v, q), (w, q2))` for each `label(v, w)` and move `(q, label, q2)`."""
    labelled = None
    for label in auto.labels:
        part = relation(label).select(*KEY, "a", "b", F.lit(label).alias("label"))
        labelled = part if labelled is None else labelled.unionByName(part)
    moves = spark.createDataFrame(list(auto.moves), "q int, label string, q2 int")
    return labelled.join(F.broadcast(moves), on="label").select(
        *KEY,
        F.struct(F.col("a").alias("v"), F.col("q").alias("q")).alias("a"),
        F.struct(F.col("b").alias("v"), F.col("q2").alias("q")).alias("b"),
    )


def path_pairs(auto: Automaton, closed: DataFrame) -> DataFrame:
    """`(cid, tau, u, w)` of a closed product graph: initial state to accepting state."""
    return closed.filter(
        F.col("a.q").isin(sorted(auto.initial)) & F.col("b.q").isin(sorted(auto.accepting))
    ).select(*KEY, F.col("a.v").alias("a"), F.col("b.v").alias("b"))


def identity_pairs(domain: DataFrame) -> DataFrame:
    """`(v, v)` for every v of the active domain `(cid, tau, v)`."""
    return domain.select(*KEY, F.col("v").alias("a"), F.col("v").alias("b"))
