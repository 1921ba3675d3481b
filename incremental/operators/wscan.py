"""WSCAN(ω, β): an input label's edges as sgts (thesis Def 30, 5.4; specs/semantics.md §2).

Interval: an edge inserted at `t` is valid on `[t, ⌊t/β⌋·β + ω)`; every edge of one slide bucket
expires at the same instant. Expiry needs no message: the interval carries it. Re-inserting a
valid edge in the same bucket is covered and dropped (coalescing); in a later bucket it widens
the key's coverage and is emitted.

Explicit deletions (`scan`, for a batch holding `-` edges): the events of one instant apply in
input order (specs/semantics.md §1), so per key only the net effect leaves the operator. A `-` matches
when the key is valid at that point (before the batch, or by an earlier `+` of the batch);
otherwise it is counted in `unmatched` and changes nothing. A key valid before the batch and
not after it gets an end record `(s, t, start, now)` (a negative tuple, incremental/sgt.py); a
key deleted and re-inserted stays valid without a break (`[start, now)` then `[now, exp)`), so
only a widening, if any, is emitted. Cost per edge: O(1), plus O(log n) when emitted.

When every reader is a PATH, the coverage is read off the node's shared index instead of kept
beside it (`read_coverage_from`, state/index_coverage.py): the same rows, the window's edges
held once.

With conditions (thesis rule 12, W_ω(σ_Φ(S))), an edge that fails them is dropped before the
window, `-` edges included (a `+` and a `-` of one key pass or fail alike): the window keeps
no coverage for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..sgt import wscan_expiry
from ..state.coalescer import Coalescer
from ..state.index_coverage import IndexCoverage
from .base import BuildContext, CoalescedOperator
from .filter import compile_conditions, passes

if TYPE_CHECKING:
    from ...sga.algebra import Op
    from ..state.edge_index import EdgeIndex


class WScanOp(CoalescedOperator):
    __slots__ = (
        "label",
        "window",
        "slide",
        "paths",
        "deleted",
        "unmatched",
        "conditions",
        "span_starts_coalesced",
    )

    def __init__(self, node: Op, ctx: BuildContext) -> None:
        super().__init__(node)
        self.label = node.label
        self.window = node.window
        self.slide = node.slide
        self.paths = ctx.paths
        self.deleted = 0  # '-' edges that matched a valid edge
        self.unmatched = 0  # '-' edges that matched nothing
        self.conditions = compile_conditions(node.conditions)
        #: set by the runtime for an output that no operator reads (`process_span`)
        self.span_starts_coalesced = False

    def process(self, batches: list, now: int) -> list:
        """`batches[0]`: raw `+` edges `(src, trg, t, '+')` of this label, all with `t == now`
        (a batch with `-` edges goes to `scan`)."""
        (batch,) = batches
        return self._admit(batch, wscan_expiry(now, self.window, self.slide), True)

    def spans(self) -> bool:
        return True

    def process_span(self, batches: list) -> list:
        """`process` over a span: `+` edges of several instants in time order, all in one
        slide bucket (so one exp). An emitted sgt starts at its edge's time, not at its key's
        coalesced start (a widening emitted as `[time, exp)`, which with what was emitted
        before covers the same): its ts is the instant the span's consumers run it at
        (`PathOp.process_span`). An output that no operator reads
        (`span_starts_coalesced`) emits its keys' coalesced starts, as `process` does."""
        (batch,) = batches
        if not batch:
            return []
        _s, _t, first, _op = next(iter(batch))
        exp = wscan_expiry(first, self.window, self.slide)
        return self._admit(batch, exp, self.span_starts_coalesced)

    def _admit(self, batch: list, exp: int, from_start: bool) -> list:
        """The sgts of `+` edges valid until `exp`, each admitted at its own time; an emitted
        one starts at its key's coalesced start (`from_start`) or at its edge's time."""
        conditions, label = self.conditions, self.label
        if conditions:  # (an edge failing them never reaches the window)
            batch = [(s, t, time, op) for s, t, time, op in batch if passes(conditions, s, t)]
        rows = self.out.admit_edges(batch, exp, from_start)
        if self.paths:
            return [(s, t, ts, until, ((s, t, label),)) for s, t, ts, until, _w in rows]
        return rows

    def read_coverage_from(self, index: EdgeIndex) -> None:
        """Read the emitted coverage off `index`, the node's shared one, which every reader of
        this node (PATHs only: see state/index_coverage.py) reads: no Coalescer of its own."""
        self.out = IndexCoverage(index)

    def state(self) -> dict:
        return {**super().state(), "deleted": self.deleted, "unmatched": self.unmatched}

    def restore(self, state: dict) -> None:
        if state["output"].get("class") == "Coalescer" and type(self.out) is not Coalescer:
            self.out = Coalescer()  # saved by a WSCAN keeping its own coverage: it goes on so
        super().restore(state)
        self.deleted = state["deleted"]
        self.unmatched = state["unmatched"]

    def scan(self, edges: list, now: int) -> tuple[list, list]:
        """Raw edges of this label at `now`, some of them `-`: `(new sgts, end records)`."""
        inserted, gone, matched, unmatched = net_effect(self.out.until, edges, now, self.conditions)
        self.deleted += matched
        self.unmatched += unmatched
        exp = wscan_expiry(now, self.window, self.slide)
        admit, cut, label, paths = self.out.admit, self.out.cut, self.label, self.paths
        result: list = []
        for key in inserted:
            got = admit(key, now, exp, now)
            if got is not None:
                s, t = key
                g_ts, g_exp = got
                result.append((s, t, g_ts, g_exp, ((s, t, label),) if paths else None))
        ended: list = []
        for key in gone:
            s, t = key
            g_ts, g_end = cut(key, now, now)
            ended.append((s, t, g_ts, g_end, None))
        return result, ended

    def deletion_counts(self, label: str) -> tuple[int, int]:
        """`(matched, unmatched)` `-` edges of `label` so far."""
        return self.deleted, self.unmatched


def net_effect(until, edges: list, now: int, conditions) -> tuple[list, list, int, int]:
    """What one label's raw edges at `now` (input order, some `-`) do to its window, whose
    coverage per key ends at `until(key)`: `(inserted, ended, matched, unmatched)`, the keys
    valid after the batch that got a `+` in it, the keys valid before it and not after, and
    the `-` edges that matched a valid key or nothing (see the module docstring). Edges that
    fail `conditions` are dropped first. O(1) per edge."""
    before: dict = {}  # key -> valid before the batch
    valid: set = set()  # keys valid after the edges read so far
    inserted: set = set()  # keys with a '+' in the batch
    matched = unmatched = 0
    for s, t, _time, op in edges:
        if conditions and not passes(conditions, s, t):
            continue
        key = (s, t)
        if key not in before:
            end = until(key)
            before[key] = was = end is not None and end > now
            if was:
                valid.add(key)
        if op == "+":
            valid.add(key)
            inserted.add(key)
        elif key in valid:
            valid.discard(key)
            matched += 1
        else:
            unmatched += 1
    kept = [key for key in before if key in valid and key in inserted]
    ended = [key for key, was in before.items() if was and key not in valid]
    return kept, ended, matched, unmatched
