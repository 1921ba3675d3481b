"""RENAME: one stream under a new label, optionally reversed (a one-atom rule, thesis 5.2.2).

Intervals pass through unchanged; a relabelling (or swap) is a bijection on keys, so the
coalesced input stays coalesced; end records are renamed the same way. Stateless; O(1) per
tuple.
"""

from __future__ import annotations

from .base import PhysicalOperator


class RenameOp(PhysicalOperator):
    __slots__ = ("reverse",)

    def __init__(self, node, ctx) -> None:
        super().__init__(node)
        self.reverse = node.reverse

    def process(self, batches, now):
        if not self.reverse:
            return batches[0]
        return [(t, s, ts, exp, wit) for s, t, ts, exp, wit in batches[0]]

    retract = process
