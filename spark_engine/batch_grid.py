"""The micro-batches of the Spark engine: the instants between two consecutive change points
of the window (specs/semantics.md §2), one slide bucket when every window is a multiple of the
slide.

A WSCAN tuple inserted at `t` expires at `⌊t/β⌋·β + ω` (incremental/sgt.py), and a derived
tuple expires at the smallest exp of the tuples that make it; so every expiry instant is
`kβ + ω_l` for a bucket `k` and a label window `ω_l`. Inside one slide bucket `[kβ, (k+1)β)`
these fall at the offsets `ω_l mod β`; cutting each bucket at those offsets gives batches in
which *nothing expires*: from a batch's first instant to its last the input snapshot only
grows, so every output key enters at most once and then stays to the batch's end. That is what
lets a batch be evaluated as a whole, with the exact start instant of each result recovered by
the min-max "earliest arrival" semiring beside the max-min expiry one
(spark_engine/coverage.py). With `ω mod β = 0` (every spec program) a batch is a bucket.
Every new WSCAN tuple of one label in one batch gets the same exp, computed once per batch
with the engine's own formula (`wscan_expiry`).
"""

from __future__ import annotations

from bisect import bisect_right

import attrs

from ..incremental.sgt import wscan_expiry
from ..sga.algebra import Plan, WScan


@attrs.frozen
class Batch:
    """Batch number `index`: the instants `[start, end)`."""

    index: int
    start: int
    end: int


@attrs.frozen
class BatchGrid:
    """Batches of slide `slide` cut at `offsets` (ascending, starting at 0) in each bucket;
    `windows` maps each input label to its window ω_l."""

    slide: int
    offsets: tuple[int, ...]
    windows: dict[str, int]

    @classmethod
    def of(cls, plan: Plan) -> BatchGrid:
        """The grid of a plan's WSCANs (their common slide, their windows)."""
        scans = [n for n in plan.nodes() if isinstance(n, WScan)]
        slide = min((n.slide for n in scans), default=1)
        windows = {name: n.window for n in scans for name in n.reads}
        offsets = tuple(sorted({0} | {w % slide for w in windows.values()}))
        return cls(slide, offsets, windows)

    def batch_of(self, t: int) -> int:
        """The number of the batch holding instant `t`. O(log offsets).

        >>> BatchGrid(10, (0, 4), {"a": 24}).batch_of(13)
        2
        >>> BatchGrid(10, (0, 4), {"a": 24}).batch_of(15)
        3
        """
        bucket, offset = divmod(t, self.slide)
        return bucket * len(self.offsets) + bisect_right(self.offsets, offset) - 1

    def batch(self, index: int) -> Batch:
        """Batch number `index` with its instants."""
        bucket, sub = divmod(index, len(self.offsets))
        base = bucket * self.slide
        start = base + self.offsets[sub]
        end = base + (self.offsets[sub + 1] if sub + 1 < len(self.offsets) else self.slide)
        return Batch(index, start, end)

    def expiry(self, label: str, batch: Batch) -> int:
        """The exp of every tuple of `label` inserted in `batch` (one bucket: one exp)."""
        return wscan_expiry(batch.start, self.windows[label], self.slide)

    def batch_column(self, ts: str):
        """`batch_of` as a Spark column expression over the long column named `ts` (integer
        arithmetic: a double division would round large instants)."""
        from pyspark.sql import functions as F

        offset = f"pmod({ts}, {self.slide}L)"
        bucket = F.expr(f"({ts} - {offset}) div {self.slide}L")
        sub = sum(
            (F.when(F.expr(offset) >= F.lit(o), 1).otherwise(0) for o in self.offsets[1:]),
            F.lit(0),
        )
        return bucket * F.lit(len(self.offsets)) + sub
