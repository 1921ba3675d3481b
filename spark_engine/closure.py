"""PATH as a semi-naive closure over the product of the window graph and the automaton,
iterated to a fixpoint inside each batch (thesis Def 34; specs/semantics.md §4, §6).

The regex becomes the engine's minimal DFA (base/dfa.py); a tuple `(a, b)` of letter
`l` is a product edge `(a, s) -> (b, q)` for every transition `s -l-> q`. The closure table
holds, per root `x` and product node `(v, q)` reached from `(x, start)` by at least one edge,
the coalesced interval of that reachability (spark_engine/coverage.py): `exp` the largest
bottleneck exp over its paths (the max-min semiring the engine's per-level closures compute,
incremental/state/level_closure.py), `ts` its earliest arrival in the batch (min-max), or the
start of its run when it was reachable before. A result `(x, y)` is a row with a final `q`;
ε-pairs of a nullable regex come from the `domain` input (VERTICES).

One batch: round 0 extends the stored rows that are live by the product edges of the input
deltas, and starts a path at every delta edge leaving the start state (its root is its
source); each later round extends only the rows the previous round changed (new, longer-lived
or earlier), by every live product edge, until a round changes nothing. Every new path holds
a changed edge: its prefix before the last one is a stored row or empty (round 0), the rest
is found round by round. When the live product edges are small enough to broadcast (exact
counts of the inputs), every root's rounds run inside one task, the whole closure in one job
(spark_engine/local_closure.py); else the edges are built once per batch, hash-partitioned
on `(v, q)`, so that a round shuffles only its frontier to meet them, and each round is one
Spark job (its merge flushed and counted: spark_engine/state_store.py); rounds per batch are
bounded by the longest chain of improvements, at most the number of product nodes.
"""

from __future__ import annotations

from pyspark.sql import DataFrame

from ..incremental.operators.path import path_automaton
from ..sga.algebra import Path
from .batch_context import BatchContext
from .coverage import live, merge
from .local_closure import local_fixpoint
from .relation import Relation
from .selects import union_all

CLOSURE_KEYS = ("src", "trg", "q")


def closure_part(part: int) -> int:
    """The state store part of the closure of the PATH whose output table is `part`."""
    return -1 - part


def _product_edges(tuples: DataFrame, moves: list[tuple[int, int]]) -> DataFrame:
    """`(a, qa, b, qb, ts, exp)` for every tuple `(a, b)` and transition `qa -> qb` of its
    letter."""
    return union_all(
        [
            tuples.selectExpr("src AS a", f"{s} AS qa", "trg AS b", f"{q} AS qb", "ts", "exp")
            for s, q in moves
        ]
    )


def _extend(rows: DataFrame, edges: DataFrame) -> DataFrame:
    """Closure rows `(src, trg, q)` followed by one product edge: the intersection of the
    row's and the edge's intervals."""
    at = rows.selectExpr("src", "trg AS a", "q AS qa", "ts AS r_ts", "exp AS r_exp")
    return at.join(edges, ["a", "qa"]).selectExpr(
        "src", "b AS trg", "qb AS q", "greatest(r_ts, ts) AS ts", "least(r_exp, exp) AS exp"
    )


def path(node: Path, ctx: BatchContext) -> Relation:
    """The batch's new and widened pairs of `node`, from the closure run to its fixpoint."""
    dfa, letters = path_automaton(node)
    inputs = [ctx.input(i) for i in node.inputs]
    domain = ctx.input(node.domain) if node.domain is not None and dfa.nullable else None
    cpart = closure_part(ctx.parts[node])
    store = ctx.store
    store.flush()  # the inputs are read by every round: final and counted once
    deltas = [r.delta for r in inputs]
    domain_delta = None if domain is None else domain.delta
    moves = [dfa.by_letter.get(letter, []) for letter in letters]
    changed = [_product_edges(d, m) for d, m in zip(deltas, moves) if d is not None and m]
    candidates = []
    if changed:
        _fixpoint(ctx, cpart, dfa.start, inputs, moves, union_all(changed))
        finals = ", ".join(str(q) for q in sorted(dfa.finals))
        reached = store.table(cpart).filter(f"touched AND q IN ({finals})")
        candidates.append(reached.select("src", "trg", "ts", "exp"))
    else:
        ctx.carry_part(cpart)
    if domain_delta is not None:
        candidates.append(domain_delta)
    if not candidates:
        return ctx.carry(node)
    return ctx.coalesce(node, union_all(candidates))


def _fixpoint(ctx: BatchContext, cpart: int, start_state: int, inputs, moves, new_edges) -> None:
    """Run the closure of part `cpart` to its fixpoint; its rows changed in the batch end up
    `touched`."""
    store, start = ctx.store, ctx.start
    every = [_product_edges(r.live, m) for r, m in zip(inputs, moves) if m]
    rows = sum((r.sizes() or (0, 0))[0] * len(m) for r, m in zip(inputs, moves))
    if store.broadcastable(rows):  # every round of a root in one task: one job
        ctx.rounds += local_fixpoint(store, cpart, start, start_state, union_all(every), new_edges)
        return
    # built and hash-partitioned on (a, qa) once: each round shuffles its frontier
    all_edges = union_all(every).repartition("a", "qa").localCheckpoint(eager=False)
    stored = store.table(cpart).selectExpr(*CLOSURE_KEYS, "ts", "exp", "false AS touched")
    roots = new_edges.filter(f"qa = {start_state}").selectExpr(
        "a AS src", "b AS trg", "qb AS q", "ts", "exp"
    )
    first = roots.unionByName(_extend(live(stored, start), new_edges))
    store.put(cpart, merge(stored, first, CLOSURE_KEYS, start, touched=True))
    store.flush()
    ctx.rounds += 1
    while not store.unchanged(cpart):
        table = store.table(cpart)
        frontier = table.filter("changed").select(*CLOSURE_KEYS, "ts", "exp")
        step = _extend(frontier, all_edges)
        store.put(cpart, merge(table, step, CLOSURE_KEYS, start, touched=True))
        store.flush()
        ctx.rounds += 1
