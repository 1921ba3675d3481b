"""FILTER: the sgts whose endpoints satisfy every condition (thesis Def 31).

Intervals pass through unchanged; expiry and end records (deletions) flow through as they
come: an end record is kept or dropped by the same test as its key's sgts.
Stateless: the input is coalesced per key and a filter keeps or drops whole keys, so the output
is coalesced too. Cost per tuple: O(#conditions).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import BuildContext, PhysicalOperator

if TYPE_CHECKING:
    from ...sga.algebra import Op


def compile_conditions(conditions):
    """Conditions as `(left_is_src, op_is_eq, right_kind, right_value)`; right_kind is 0 for
    src, 1 for trg, 2 for a constant."""
    out = []
    for c in conditions:
        if c.left not in ("src", "trg"):
            raise ValueError(f"bad FILTER condition {c.text()!r}")
        if c.right_const:
            kind, value = 2, str(c.right)
        elif c.right in ("src", "trg"):
            kind, value = (0 if c.right == "src" else 1), None
        else:
            raise ValueError(f"bad FILTER condition {c.text()!r}")
        out.append((c.left == "src", c.op == "=", kind, value))
    return tuple(out)


def passes(conditions, s, t) -> bool:
    """Whether the endpoints `s`, `t` satisfy every compiled condition."""
    for left_src, eq, kind, value in conditions:
        left = s if left_src else t
        right = value if kind == 2 else (s if kind == 0 else t)
        if (left == right) != eq:
            return False
    return True


class FilterOp(PhysicalOperator):
    __slots__ = ("conditions",)

    def __init__(self, node: Op, ctx: BuildContext) -> None:
        super().__init__(node)
        self.conditions = compile_conditions(node.conditions)

    def process(self, batches: list, now: int) -> list:
        conditions = self.conditions
        result = []
        (batch,) = batches
        for sgt in batch:
            s, t, _ts, _exp, _wit = sgt
            for left_src, eq, kind, value in conditions:
                left = s if left_src else t
                right = value if kind == 2 else (s if kind == 0 else t)
                if (left == right) != eq:
                    break
            else:
                result.append(sgt)
        return result

    retract = process

    def spans(self) -> bool:
        return True  # the instant is not read
