"""UNION: every sgt of every input under one label (thesis Def 32).

Intervals pass through; one key may come from several inputs, so the output is coalesced
(a tuple already covered for its key is dropped, specs/semantics.md §5). Expiry needs no message.
An end record on one input ends the key only as far as no other input still covers it: the
new end is the largest `exp` of the key over the inputs' shared indexes. Cost per tuple: O(1),
O(log n) when emitted; per end record O(#inputs).
"""

from __future__ import annotations

from .base import IndexedInputsOperator, sgts


class UnionOp(IndexedInputsOperator):
    __slots__ = ()

    def process(self, batches: list, now: int) -> list:
        admit = self.out.admit
        result = []
        for s, t, ts, exp, wit in sgts(batches):
            got = admit((s, t), ts, exp, now)
            if got is not None:
                g_ts, g_exp = got
                result.append((s, t, g_ts, g_exp, wit))
        return result

    def retract(self, batches: list, now: int) -> list:
        cut = self.out.cut
        result = []
        for s, t, _ts, _exp, _wit in sgts(batches):
            best, wit = now, None
            for index in self.inputs:
                entry = index.get(s, t)
                if entry is not None and entry.exp > best:
                    best, wit = entry.exp, entry.wit
            got = cut((s, t), best, now, self.paths)
            if got is not None:
                g_ts, g_end = got
                result.append((s, t, g_ts, g_end, wit))
        return result
