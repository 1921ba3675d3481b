"""Rule 6 of the thesis (6.2.1), distributivity of FILTER over UNION:
σ_Φ(S_a ∪[d] S_b) ≡ σ_Φ(S_a) ∪[d] σ_Φ(S_b), both ways.

    FILTER[src = trg]           ->   UNION[D]
      UNION[D]                         FILTER[src = trg]
        RENAME[a -> D]                   RENAME[a -> D]
          WSCAN[a]                         WSCAN[a]
        PATTERN[... -> D]              FILTER[src = trg]
          ...                            PATTERN[... -> D]

A FILTER tests a tuple's endpoints only, which the UNION keeps, so filtering the union's
snapshot or each input's is the same (Lemma 2). Pushed down, the UNION coalesces only the
tuples that pass, and each FILTER can move further (rules 9, 12); pulled up, one FILTER
replaces several.
"""

from __future__ import annotations

from ..algebra import Filter, Op, Union

NAME = "push_filter_into_union"
THESIS_RULE = 6


def push_filter_into_union(op: Op) -> tuple[Op, ...]:
    """`(∪ of σ_Φ(S_i),)` for `σ_Φ(∪ S_i)`, and `(σ_Φ(∪ S_i),)` for a UNION whose inputs are
    all FILTERs of the same conditions; `()` otherwise."""
    if isinstance(op, Filter) and isinstance(op.input, Union):
        union = op.input
        return (Union(tuple(Filter(i, op.conditions) for i in union.inputs), union.label),)
    if isinstance(op, Union) and op.inputs and all(isinstance(i, Filter) for i in op.inputs):
        conditions = op.inputs[0].conditions
        if all(set(i.conditions) == set(conditions) for i in op.inputs):
            inner = Union(tuple(dict.fromkeys(i.input for i in op.inputs)), op.label)
            return (Filter(inner, conditions),)
    return ()
