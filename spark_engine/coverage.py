"""Coalescing a node's new derivations into its live tuples: the one merge every stateful
operator of the Spark engine ends with (specs/semantics.md §4b, §6; the engine's Coalescer,
incremental/state/coalescer.py, does the same per key and round).

A stored tuple `(key, ts, exp)` says: the key has been in the node's snapshot at every instant
of `[ts, now]` (its run of validity started at `ts`) and, if nothing more arrives, stays until
`exp`. Within a batch nothing expires (spark_engine/batch_grid.py), so a batch's derivations
of one key combine in the semiring product

    max-min on exp:  a derivation lasts until its inputs' smallest exp; a key until the
                     largest over its derivations (the thesis's PATH coalescing);
    min-max on ts:   a derivation holds from its inputs' largest ts; a key enters at the
                     smallest over its derivations (its earliest arrival in the batch),

and the merge with the stored tuple keeps the earlier start when the run goes on (the stored
tuple holds the candidate's start, or ends exactly there: intervals that abut coalesce,
§4b), and the later exp. A tuple stored before the batch keeps its start: a derivation valid
since `s` without a break makes the key valid since `s`, so its run started no later. A key
is *changed* when it is new, its exp grew or (between the rounds of one batch's closure) its
start moved earlier: the changed tuples are the node's delta, all its consumers read of the
batch (semi-naive evaluation).
Tuples that ended at or before the batch's start and did not go on are dropped: the state
holds the window's live tuples only. Cost: one shuffle of the stored and candidate tuples on
the key, into one aggregation.
"""

from __future__ import annotations

from collections.abc import Sequence

from pyspark.sql import DataFrame
from pyspark.sql import functions as F


def live(table: DataFrame, start: int) -> DataFrame:
    """The tuples of `table` valid at the batch's first instant `start` (so through the
    batch: nothing expires inside it)."""
    return table.filter(f"exp > {start}")


def merge(
    stored: DataFrame,
    candidates: DataFrame,
    keys: Sequence[str],
    start: int,
    touched: bool = False,
) -> DataFrame:
    """`stored` (columns keys, ts, exp[, touched]) with the batch's `candidates` (keys, ts,
    exp) coalesced in: columns keys, ts, exp, `changed` (new, longer-lived or, within one
    batch, earlier), and with `touched` also `touched` (changed now or by an earlier merge
    of this batch, which `stored` carries: PATH's closure merges once per round)."""
    none = "CAST(NULL AS BIGINT)"
    old = stored.filter(f"exp >= {start}").selectExpr(
        *keys,
        "ts AS o_ts",
        "exp AS o_exp",
        f"{none} AS c_ts",
        f"{none} AS c_exp",
        *(("touched AS o_touched",) if touched else ()),
    )
    new = candidates.selectExpr(
        *keys,
        f"{none} AS o_ts",
        f"{none} AS o_exp",
        "ts AS c_ts",
        "exp AS c_exp",
        *(("false AS o_touched",) if touched else ()),
    )
    # one shuffle: the stored row (at most one per key) and the candidates meet per key
    sums = ["max(o_ts) AS o_ts", "max(o_exp) AS o_exp", "min(c_ts) AS c_ts", "max(c_exp) AS c_exp"]
    if touched:
        sums.append("max(o_touched) AS o_touched")
    both = old.unionByName(new).groupBy(*keys).agg(*(F.expr(e) for e in sums))
    goes_on = "coalesce(o_exp >= c_ts, false)"
    changed = f"(c_exp IS NOT NULL AND (NOT {goes_on} OR c_exp > o_exp OR c_ts < o_ts))"
    columns = [
        *keys,
        f"CASE WHEN c_ts IS NULL THEN o_ts WHEN {goes_on} THEN least(o_ts, c_ts) "
        "ELSE c_ts END AS ts",
        "greatest(o_exp, c_exp) AS exp",
        f"{changed} AS changed",
    ]
    if touched:
        columns.append(f"({changed} OR o_touched) AS touched")
    return both.selectExpr(*columns).filter(f"exp > {start}")
