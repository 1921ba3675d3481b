"""RENAME: one stream under a new label, optionally reversed (a one-atom rule, thesis 5.2.2).

Intervals pass through unchanged; a relabelling (or swap) is a bijection on keys, so the
coalesced input stays coalesced; end records are renamed the same way. Stateless; O(1) per
tuple.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import BuildContext, PhysicalOperator

if TYPE_CHECKING:
    from ...sga.algebra import Op


class RenameOp(PhysicalOperator):
    __slots__ = ("reverse",)

    def __init__(self, node: Op, ctx: BuildContext) -> None:
        super().__init__(node)
        self.reverse = node.reverse

    def process(self, batches: list, now: int) -> list:
        (batch,) = batches
        if not self.reverse:
            return batch
        return [(t, s, ts, exp, wit) for s, t, ts, exp, wit in batch]

    retract = process

    def spans(self) -> bool:
        return True  # the instant is not read
