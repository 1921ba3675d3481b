"""What a plan node gives its consumers in one batch: its live tuples and its delta.

`live`: the tuples `(src, trg, ts, exp)` valid through the batch, this batch's included;
`delta`: those that are new or widened in the batch (spark_engine/coverage.py), or None when
the node is known to have none, so that the consumers that see only None skip their work;
`sizes()`: at most how many rows each has, once its table is flushed (exact counts from the
flush), by which the joins choose to broadcast a small side.
Both are read anew at each use: a plan built after a flush of the state store reads the
flushed tables (spark_engine/state_store.py).
"""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql import DataFrame

from .coverage import live
from .state_store import StateStore

TUPLE_COLUMNS = ("src", "trg", "ts", "exp")


class Relation:
    """A node's live tuples and delta in the current batch."""

    def __init__(
        self,
        live_of: Callable[[], DataFrame],
        delta_of: Callable[[], DataFrame | None],
        sizes: Callable[[], tuple[int, int] | None],
    ) -> None:
        self._live_of = live_of
        self._delta_of = delta_of
        self._sizes = sizes

    def sizes(self) -> tuple[int, int] | None:
        """At most how many `(live, delta)` rows, when known (the tables are flushed)."""
        return self._sizes()

    @property
    def live(self) -> DataFrame:
        return self._live_of()

    @property
    def delta(self) -> DataFrame | None:
        return self._delta_of()

    @classmethod
    def stored(cls, store: StateStore, part: int, start: int, changed: bool) -> Relation:
        """A stateful node's table in `store`; `changed`: the batch may have changed it."""

        def live_of() -> DataFrame:
            return live(store.table(part), start).select(*TUPLE_COLUMNS)

        def delta_of() -> DataFrame | None:
            if not changed or store.unchanged(part):
                return None
            return store.table(part).filter("changed").select(*TUPLE_COLUMNS)

        def sizes() -> tuple[int, int] | None:
            if store.pending(part):
                return None
            counts = store.counts[part]
            return counts.rows, counts.changed

        return cls(live_of, delta_of, sizes)

    def mapped(self, f: Callable[[DataFrame], DataFrame]) -> Relation:
        """This relation through a tuple-wise map `f` (FILTER, RENAME)."""

        def delta_of() -> DataFrame | None:
            delta = self.delta
            return None if delta is None else f(delta)

        return Relation(lambda: f(self.live), delta_of, self.sizes)
