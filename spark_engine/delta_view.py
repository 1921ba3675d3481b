"""The delta view `(τ, '+'|'-', src, trg, label)` of the Spark engine's interval rows,
computed by Spark (specs/semantics.md §5; incremental/deltas.py is the driver's version,
which `sgq run -o FILE` keeps using): what a batch output directory holds with `--emit
deltas` (spark_engine/batch_output.py).

Per output key the view keeps its open segment `[ts, exp)`, the coalesced coverage of the
rows so far, as a state table (part `part` of the engine's store; the label as its number
in `labels`, in the `q` column). Every exp is the start of a batch (spark_engine/
batch_grid.py), so in batch `[S, E)` a segment that is not carried on ends at `S`:

    '+' at ts   for a row whose key has no segment reaching ts (new, or after a gap)
    '-' at S    for a segment ending at S that no row of the batch carries on

and touching rows carry a segment on (a key that leaves and enters at one instant never
left). Rows of one batch all hold at its last instant (nothing expires inside it), so per key
they coalesce to one, the smallest ts and largest exp. The merged segments are stored with
the batch's events marked (`changed`: a '+', `touched`: a '-'), a segment that ended at S
included, so the batch's events are read from the flushed table; the next batch drops it
(it reads segments with `exp >= S`). At the end of input every open segment ends: a '-' at
its exp. Cost: one shuffle of the stored segments and the batch's rows on the key.
"""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from .batch_grid import Batch, BatchGrid
from .sql_text import literal
from .state_store import StateStore

#: the columns of the view's table
SEGMENTS = ("src", "trg", "q", "ts", "exp", "changed", "touched")


class SparkDeltaView:
    """The delta view of one run's output labels `labels`, kept in part `part` of `store`."""

    def __init__(self, store: StateStore, part: int, labels: list[str]) -> None:
        self.store = store
        self.part = part
        self.labels = labels
        store.declare(part, SEGMENTS)

    def feed(self, rows: DataFrame, batch: Batch) -> None:
        """Merge a batch's interval rows `(src, trg, label, ts, exp)` into the segments; the
        events are `events(batch)` once the store is flushed."""
        start = batch.start
        number = " ".join(f"WHEN {literal(x)} THEN {i}" for i, x in enumerate(self.labels))
        none = "CAST(NULL AS BIGINT)"
        old = (
            self.store.table(self.part)
            .filter(f"exp >= {start}")
            .selectExpr(
                "src",
                "trg",
                "q",
                "ts AS o_ts",
                "exp AS o_exp",
                f"{none} AS c_ts",
                f"{none} AS c_exp",
            )
        )
        new = rows.selectExpr(
            "src",
            "trg",
            f"CASE label {number} END AS q",
            f"{none} AS o_ts",
            f"{none} AS o_exp",
            "ts AS c_ts",
            "exp AS c_exp",
        )
        sums = (
            "max(o_ts) AS o_ts",
            "max(o_exp) AS o_exp",
            "min(c_ts) AS c_ts",
            "max(c_exp) AS c_exp",
        )
        both = old.unionByName(new).groupBy("src", "trg", "q").agg(*(F.expr(e) for e in sums))
        goes_on = "coalesce(o_exp >= c_ts, false)"
        self.store.put(
            self.part,
            both.selectExpr(
                "src",
                "trg",
                "q",
                f"CASE WHEN c_ts IS NULL OR {goes_on} THEN o_ts ELSE c_ts END AS ts",
                f"CASE WHEN c_ts IS NULL THEN o_exp WHEN {goes_on} THEN greatest(o_exp, c_exp) "
                "ELSE c_exp END AS exp",
                f"(c_ts IS NOT NULL AND NOT {goes_on}) AS changed",
                f"(o_exp = {start} AND NOT {goes_on}) AS touched",
            ),
        )

    def events(self, batch: Batch) -> DataFrame:
        """The batch's events `(time, op, src, trg, label)` (after the flush of `feed`)."""
        table = self.store.table(self.part)
        label = self._label()
        plus = table.filter("changed").selectExpr("ts AS time", "'+' AS op", "src", "trg", label)
        minus = table.filter("touched").selectExpr(
            f"CAST({batch.start} AS BIGINT) AS time", "'-' AS op", "src", "trg", label
        )
        return plus.unionByName(minus)

    def closing(self, last: Batch, grid: BatchGrid) -> DataFrame:
        """The end of input after batch `last`: a '-' at its exp for every open segment,
        with the `batch` of that instant."""
        table = self.store.table(self.part).filter(f"exp > {last.start}")
        return table.selectExpr("exp AS time", "'-' AS op", "src", "trg", self._label()).withColumn(
            "batch", grid.batch_column("time")
        )

    def _label(self) -> str:
        cases = " ".join(f"WHEN {i} THEN {literal(x)}" for i, x in enumerate(self.labels))
        return f"CASE q {cases} END AS label"
