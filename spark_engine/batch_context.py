"""What an operator of the Spark engine may ask for while it builds its part of one batch:
the batch and its edges, its inputs' relations, and the two ways to end: `coalesce` its
candidate tuples into its table, or `carry` the table over when no input changed.

Operators never run Spark jobs themselves, except PATH, whose fixpoint needs to know when a
round changed nothing (spark_engine/closure.py); the driver (spark_engine/engine.py) owns the
state store, the order of the nodes and the flush at the batch's end.
"""

from __future__ import annotations

from pyspark.sql import DataFrame

from .batch_grid import Batch, BatchGrid
from .coverage import merge
from .relation import Relation
from .state_store import StateStore


class BatchContext:
    """One batch: `batch`, its `edges` (src, trg, label, ts; None when it has none),
    `labels` (the labels it has edges of), `grid`, and the run's `store` and `parts`
    (plan node -> part number of its table)."""

    def __init__(
        self,
        batch: Batch,
        edges: DataFrame | None,
        labels: frozenset[str],
        grid: BatchGrid,
        store: StateStore,
        parts: dict,
    ) -> None:
        self.batch = batch
        self.edges = edges
        self.labels = labels
        self.grid = grid
        self.store = store
        self.parts = parts
        self.relations: dict = {}
        self.rounds = 0  # closure rounds of the batch, over every PATH

    @property
    def start(self) -> int:
        return self.batch.start

    def input(self, node) -> Relation:
        """The relation of `node`, an input already built in this batch."""
        return self.relations[node]

    def coalesce(self, node, candidates: DataFrame) -> Relation:
        """`node`'s table with `candidates` (src, trg, ts, exp) coalesced in."""
        part = self.parts[node]
        merged = merge(self.store.table(part), candidates, ("src", "trg"), self.start)
        self.store.put(part, merged)
        return Relation.stored(self.store, part, self.start, changed=True)

    def carry(self, node) -> Relation:
        """`node`'s table as it was, less what expired: no input changed in this batch."""
        part = self.parts[node]
        self.carry_part(part)
        return Relation.stored(self.store, part, self.start, changed=False)

    def carry_part(self, part: int) -> None:
        """The table of `part` as it was, less what expired, nothing changed."""
        columns = self.store.columns[part]
        table = self.store.table(part).filter(f"exp > {self.start}")
        flags = [f"false AS {c}" if c in ("changed", "touched") else c for c in columns]
        self.store.put(part, table.selectExpr(*flags))
