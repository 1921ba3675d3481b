"""WSCAN(ω, β): an input label's edges as sgts (thesis Def 30, 5.4; SEMANTICS.md §2).

Interval: an edge inserted at `t` is valid on `[t, ⌊t/β⌋·β + ω)`; every edge of one slide bucket
expires at the same instant. Expiry needs no message: the interval carries it. Re-inserting a
valid edge in the same bucket is covered and dropped (coalescing); in a later bucket it widens
the key's coverage and is emitted. Explicit deletions (`-`) are not supported yet: they raise a
UserError. Cost per edge: O(1), plus O(log n) when emitted.
"""

from __future__ import annotations

from ...errors import UserError
from ..state.coalescer import Coalescer
from .base import PhysicalOperator


class WScanOp(PhysicalOperator):
    __slots__ = ("label", "window", "slide", "out", "paths")

    def __init__(self, node, ctx) -> None:
        super().__init__(node)
        self.label = node.label
        self.window = node.window
        self.slide = node.slide
        self.out = Coalescer()
        self.paths = ctx.paths

    def process(self, batches, now):
        """`batches[0]`: raw edges `(src, trg, t, op)` of this label, all with `t == now`."""
        window, slide, admit, label, paths = self.window, self.slide, self.out.admit, self.label, self.paths
        result = []
        for s, t, time, op in batches[0]:
            if op != "+":
                raise UserError(
                    f"explicit deletion '-' of edge {s} -> {t} ({label}) at time {time}: "
                    "'-' edges are not supported by the engine yet")
            exp = (time // slide) * slide + window
            got = admit((s, t), time, exp, now)
            if got is not None:
                result.append((s, t, got[0], got[1], ((s, t, label),) if paths else None))
        return result

    def purge(self, now):
        self.out.purge(now)

    def size(self):
        return len(self.out)

    def _check(self):
        self.out._check()
