"""ATTRIBUTE: one attribute of a WSCAN's reified edges (specs/semantics.md §4c; sga/algebra.py
`Attribute`): from `(x, e)`, `e = (x, y, values)`, the tuple `(e, y)` or `(e, values[i])`.

`e` determines the result, so the map is injective on keys: the coalesced input stays
coalesced, and intervals and end records pass through unchanged. Stateless; O(1) per tuple.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import BuildContext, PhysicalOperator

if TYPE_CHECKING:
    from ...sga.algebra import Op


class AttributeOp(PhysicalOperator):
    __slots__ = ("part",)

    def __init__(self, node: Op, ctx: BuildContext) -> None:
        super().__init__(node)
        self.part = node.part

    def process(self, batches: list, now: int) -> list:
        (batch,) = batches
        part = self.part
        if part < 0:
            return [((x, y, vs), y, ts, exp, wit) for _x, (x, y, vs), ts, exp, wit in batch]
        return [((x, y, vs), vs[part], ts, exp, wit) for _x, (x, y, vs), ts, exp, wit in batch]

    retract = process
