"""One evaluation of a query: time-ordered edges in, in engine batches; final results out.

Shared by `sgq run` (which writes what comes out) and the library's `Query.run` (which yields
it). Interval mode gives the engine's rows (`Engine.drain_rows`: tuples `(src, trg, label, ts,
exp, path)`) as each round makes them; delta mode
gives `(τ, op, keys)` groups of the delta view (incremental/deltas.py), released once time has
passed τ (specs/semantics.md §5).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from .errors import UserError
from .incremental.engine import Engine

BATCH_EDGES = 4096  # at most this many edges of one timestamp per engine batch


def batches(edges: Iterable, per_instant: bool) -> Iterator[list]:
    """Edges grouped by timestamp (a long run of one timestamp is cut every BATCH_EDGES);
    unless `per_instant`, consecutive timestamps are grouped too, up to BATCH_EDGES edges (the
    engine still runs one round per timestamp, so the results are the same, but they are
    drained and written once per group). A bad line stops the input: the edges before it
    are still handed over first, so their results are written before the error."""
    batch: list = []
    current = None
    try:
        for edge in edges:
            t = edge[3]
            if (t != current and (per_instant or len(batch) >= BATCH_EDGES)) or len(
                batch
            ) >= 2 * BATCH_EDGES:
                if batch:
                    yield batch
                batch = []
            current = t
            batch.append(edge)
    except UserError:
        if batch:
            yield batch
        raise
    if batch:
        yield batch


def _row_key(r: tuple) -> tuple:
    return (r[0], r[1], r[2])


class Evaluation:
    """A fresh engine of `query` and what its batches make final.

    `emit`: "intervals" (rows `(src, trg, label, ts, exp, path)`) or "deltas" (groups `(τ, op, keys)`, keys sorted);
    `paths`: interval rows carry a witness path; `sort_rows`: the interval rows of each batch
    sorted by (src, trg, label) (checkpoints: one batch per instant, so a resumed run writes
    the same bytes); `segments`: interval rows as the engine keeps them, `(label, rows)`
    segments (`Engine.drain_segments`), where neither of those two is asked for."""

    def __init__(
        self,
        query,
        emit: str = "intervals",
        *,
        paths: bool = False,
        sort_rows: bool = False,
        segments: bool = False,
    ):
        if emit not in ("intervals", "deltas"):
            raise UserError(f"emit must be 'intervals' or 'deltas', not {emit!r}")
        self.deltas = emit == "deltas"
        self.paths = paths and not self.deltas
        self.sort_rows = sort_rows and not self.deltas
        self.segments = segments and not (self.deltas or self.paths or self.sort_rows)
        self.engine: Engine = query.engine(paths=self.paths, history=False, deltas=self.deltas)
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
