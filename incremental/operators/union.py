"""UNION: every sgt of every input under one label (thesis Def 32).

Intervals pass through; one key may come from several inputs, so the output is coalesced
(a tuple already covered for its key is dropped, specs/semantics.md §5). Expiry needs no message.
An end record on one input ends the key only as far as no other input still covers it: the
new end is the largest `exp` of the key over the inputs' shared indexes. Cost per tuple: O(1),
O(log n) when emitted; per end record O(#inputs). As the engine's output in delta mode, read
by no operator, its keys go out as native deltas (operators/native_keys.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import BuildContext, IndexedInputsOperator, sgts

if TYPE_CHECKING:
    from ...sga.algebra import Op


class UnionOp(IndexedInputsOperator):
    __slots__ = ()

    def __init__(self, node: Op, ctx: BuildContext) -> None:
        super().__init__(node, ctx)
        # an output read by no operator: keys enter and leave the DeltaView directly
        self._native_output(node, ctx)

    def process(self, batches: list, now: int) -> list:
        if self.native is not None:
            self.native.admit((((s, t), (ts, exp)) for s, t, ts, exp, _wit in sgts(batches)), now)
            return []
        admit = self.out.admit
        result = []
        for s, t, ts, exp, wit in sgts(batches):
            got = admit((s, t), ts, exp, now)
            if got is not None:
                g_ts, g_exp = got
                result.append((s, t, g_ts, g_exp, wit))
        return result

    def retract(self, batches: list, now: int) -> list:
        if self.native is not None:
            self.native.stop(now)
            self.native = None
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
