"""UNION: every sgt of every input under one label (thesis Def 32).

Intervals pass through; one key may come from several inputs, so the output is coalesced
(a tuple already covered for its key is dropped, SEMANTICS.md §5). Expiry needs no message.
Cost per tuple: O(1), O(log n) when emitted.
"""

from __future__ import annotations

from ..state.coalescer import Coalescer
from .base import PhysicalOperator


class UnionOp(PhysicalOperator):
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
                got = admit((s, t), ts, exp, now)
                if got is not None:
                    result.append((s, t, got[0], got[1], wit))
        return result

    def purge(self, now):
        self.out.purge(now)

    def size(self):
        return len(self.out)

    def _check(self):
        self.out._check()
