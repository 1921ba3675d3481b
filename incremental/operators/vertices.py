"""VERTICES: the active domain V_τ as `(v, v)` sgts (SEMANTICS.md §2, §4; the ε-pairs of a
nullable PATH).

Each input sgt `(s, t)` valid on `[ts, exp)` makes `(s, s)` and `(t, t)` valid on it; a vertex
reached by many edges is coalesced (emitted only when its coverage widens). Expiry is carried
by the intervals. Cost per tuple: O(1), O(log n) when emitted.
"""

from __future__ import annotations

from ..state.coalescer import Coalescer
from .base import PhysicalOperator


class VerticesOp(PhysicalOperator):
    __slots__ = ("out",)

    def __init__(self, node, ctx) -> None:
        super().__init__(node)
        self.out = Coalescer()

    def process(self, batches, now):
        admit = self.out.admit
        result = []
        for batch in batches:
            if not batch:
                continue
            for s, t, ts, exp, wit in batch:
                got = admit(s, ts, exp, now)
                if got is not None:
                    result.append((s, s, got[0], got[1], () if wit is not None else None))
                if t != s:
                    got = admit(t, ts, exp, now)
                    if got is not None:
                        result.append((t, t, got[0], got[1], () if wit is not None else None))
        return result

    def purge(self, now):
        self.out.purge(now)

    def size(self):
        return len(self.out)

    def _check(self):
        self.out._check()
