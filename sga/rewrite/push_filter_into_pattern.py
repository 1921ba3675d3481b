"""Rules 9 and 10 of the thesis (6.2.1), FILTER push-down through PATTERN (left and right),
with rule 3 (conjunctive FILTER predicates) to merge with a FILTER already there.

A PATTERN condition whose variables one input binds alone is a FILTER on that input's tuples:

    PATTERN[src1, trg2 -> A](trg1 = src2, src1 = "v1")    ->   PATTERN[src1, trg2 -> A](trg1 = src2)
      WSCAN[a] WSCAN[b]                                          FILTER[src = "v1"]
                                                                   WSCAN[a]
                                                                 WSCAN[b]

The tuples of input `i` that fail the condition join nothing the condition keeps, so the
snapshots are those of the relational plan (thesis Lemma 2); the FILTER leaves intervals as
they are. It pays by cutting the rate into the join (eq. 6.3: r_O = f · r_i). Applies to
conditions of the forms `x op "c"` and `x op y` with `{x, y}` the binding of one input, in a
PATTERN without time conditions (whose rebuilt form would drop them).
"""

from __future__ import annotations

from ..algebra import EdgeCondition, Filter, Op, Pattern
from .associate_pattern import timed

NAME = "push_filter_into_pattern"
THESIS_RULE = 9


def _as_edge_condition(cond, binding: tuple[str, str]) -> EdgeCondition | None:
    s, t = binding

    def pos(v: str) -> str | None:
        return "src" if v == s else "trg" if v == t else None

    left = pos(cond.left)
    if left is None:
        return None
    if cond.right_const:
        return EdgeCondition(left, cond.op, cond.right, right_const=True)
    right = pos(cond.right)
    if right is None or right == left:  # `x op x` stays where it is
        return None
    return EdgeCondition(left, cond.op, right)


def push_filter_into_pattern(op: Op) -> tuple[Op, ...]:
    """`(the PATTERN with every condition one input binds moved into a FILTER on it,)`; `()`
    when `op` is no PATTERN or no condition can move."""
    if not isinstance(op, Pattern) or not op.conditions or timed(op):
        return ()
    inputs = list(op.inputs)
    kept = []
    moved = False
    for cond in op.conditions:
        for k, binding in enumerate(op.bindings):
            edge = _as_edge_condition(cond, binding)
            if edge is not None:
                node = inputs[k]
                if isinstance(node, Filter):
                    inputs[k] = Filter(node.input, node.conditions + (edge,))
                else:
                    inputs[k] = Filter(node, (edge,))
                moved = True
                break
        else:
            kept.append(cond)
    if not moved:
        return ()
    return (Pattern(tuple(inputs), op.bindings, op.head, op.label, tuple(kept)),)
