"""One evaluation of a query: time-ordered edges in, in engine batches; final results out.

Shared by `sgq run` (which writes what comes out) and the library's `Query.run` (which yields
it). Interval mode gives the engine's rows (`Engine.drain_rows`: tuples `(src, trg, label, ts,
exp, path)`) as each round makes them; delta mode
gives `(τ, op, keys)` groups of the delta view (incremental/deltas.py), released once time has
passed τ (specs/semantics.md §5).
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator
from operator import itemgetter

from .base.errors import UserError
from .incremental.engine import Engine
from .reorder import TimeLimit
from .sga.algebra import properties_read
from .stream_io import InputHead

BATCH_EDGES = 4096  # at most this many edges of one timestamp per engine batch


def properties_kept(query, head: InputHead) -> tuple[str, ...] | None:
    """The property names an engine of `query` over an input with this head is given (None:
    its edges are read without them). An edge's properties are part of its identity only for
    what a rule tests and for which identities a `-` edge ends (incremental/operators/
    property_scan.py): with neither (no rule reads one, no op column), an edge is its `(src,
    trg, label)`, the engine runs on plain WSCANs, and the reader types no property."""
    if head.names is None or not (head.deletes or properties_read(query.plan)):
        return None
    return head.names


def batches(edges: Iterable, per_instant: bool, slide: int | None = None) -> Iterator[list]:
    """Edges grouped by timestamp (a long run of one timestamp is cut every BATCH_EDGES);
    unless `per_instant`, consecutive timestamps are grouped too, up to BATCH_EDGES edges (the
    engine still runs one round per timestamp, so the results are the same, but they are
    drained and written once per group). `slide`: the program's slide β, if it has windows;
    no group then holds times of two slides `[kβ, (k+1)β)`, so what a group holds until it is
    written is at most one slide's results. A bad line stops the input: the edges before it
    are still handed over first, so their results are written before the error."""
    return block_batches(([edge] for edge in edges), per_instant, slide)


def block_batches(
    edge_lists: Iterable[list], per_instant: bool, slide: int | None = None
) -> Iterator[list]:
    """`batches` of edges that come in time-ordered lists (reorder.ordered_blocks), cut with a
    search of each list's times instead of a step per edge."""
    batch: list = []
    current = None
    end = None  # the end of the batch's slide: no edge at or after it joins the batch
    try:
        for edges in edge_lists:
            i, n = 0, len(edges)
            while i < n:
                size = len(batch)
                t = edges[i][3]
                if size and (
                    (t != current and (per_instant or size >= BATCH_EDGES or t >= end))
                    or size >= 2 * BATCH_EDGES
                ):
                    yield batch
                    batch, size = [], 0
                if not size:
                    end = (t // slide + 1) * slide if slide else math.inf
                # no cut before edges[k] (k > i) until its time changes with the batch at
                # BATCH_EDGES or more (at once, per instant), or the batch reaches twice that
                full = i + 2 * BATCH_EDGES - size
                k = i + 1 if per_instant else max(i + 1, i + BATCH_EDGES - size)
                if k < n and edges[k][3] == edges[k - 1][3]:
                    k = bisect_right(edges, edges[k][3], k, n, key=_time)
                j = min(k, full, n)
                if edges[j - 1][3] >= end:
                    j = bisect_left(edges, end, i, j, key=_time)
                batch.extend(edges[i:j])
                current = edges[j - 1][3]
                i = j
    except UserError:
        if batch:
            yield batch
        raise
    if batch:
        yield batch


_time = itemgetter(3)


def _row_key(r: tuple) -> tuple:
    return (r[0], r[1], r[2])


class Evaluation:
    """A fresh engine of `query` and what its batches make final.

    `emit`: "intervals" (rows `(src, trg, label, ts, exp, path)`) or "deltas" (groups `(τ, op, keys)`, keys sorted);
    `paths`: interval rows carry a witness path; `sort_rows`: the interval rows of each batch
    sorted by (src, trg, label) (checkpoints: one batch per instant, so a resumed run writes
    the same bytes); `segments`: interval rows as the engine keeps them, `(label, rows)`
    segments (`Engine.drain_segments`), where neither of those two is asked for;
    `properties`: the property names of the input (None: it has none, so a program reading
    one is refused), whose edges come with the dict of their properties (specs/semantics.md
    §1)."""

    def __init__(
        self,
        query,
        emit: str = "intervals",
        *,
        paths: bool = False,
        sort_rows: bool = False,
        segments: bool = False,
        properties: tuple[str, ...] | None = None,
    ):
        if emit not in ("intervals", "deltas"):
            raise UserError(f"emit must be 'intervals' or 'deltas', not {emit!r}")
        self.deltas = emit == "deltas"
        self.properties = properties
        self.paths = paths and not self.deltas
        self.sort_rows = sort_rows and not self.deltas
        self.segments = segments and not (self.deltas or self.paths or self.sort_rows)
        self.engine: Engine = query.engine(
            paths=self.paths, history=False, deltas=self.deltas, properties=properties or ()
        )
        #: the latest input time the query takes (its windows end within int64): the time
        #: order check refuses later edges (sgq/reorder.py)
        self.limit = TimeLimit.of(query.plan)
        self.view = self.engine.delta_view() if self.deltas else None

    def push(self, batch: list) -> list:
        """Hand one batch of time-ordered edges to the engine; what is final now."""
        self.engine.push_batch(batch)
        return self.take()

    def advance(self, t: int) -> list:
        """No edge before `t` will come; what is final now."""
        self.engine.advance(t)
        return self.take()

    def take(self) -> list:
        """Interval rows emitted since the last call (or their segments), or the delta groups
        now final."""
        if self.segments:
            return self.engine.drain_segments()
        results = self.engine.drain_rows()
        if self.deltas:
            return self.view.feed_grouped(results, self.engine.time)
        if self.sort_rows:
            # one round (one instant) at a time: rows of different keys come in an order that
            # depends on string hashing; sorted, a resumed run writes the same bytes
            results.sort(key=_row_key)
        return results

    def close(self) -> list:
        """End of input: time runs on; everything still to come (every expiry)."""
        self.engine.close()
        out = self.take()
        if self.deltas:
            out.extend(self.view.close_grouped())
        return out
