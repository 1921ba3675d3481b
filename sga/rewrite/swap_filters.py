"""Rule 5 of the thesis (6.2.1), associativity (order) of FILTER:
σ_Φ2(σ_Φ1(S)) ≡ σ_Φ1(σ_Φ2(S)).

    FILTER[trg != "2"]          ->   FILTER[src = "1"]
      FILTER[src = "1"]                FILTER[trg != "2"]
        WSCAN[a]                         WSCAN[a]

Both pass exactly the tuples that satisfy Φ1 ∧ Φ2 (rule 3), intervals unchanged (Lemma 2).
It pays to test the more selective predicate first: the outer FILTER sees f · r tuples
(eq. 6.19).
"""

from __future__ import annotations

from ..algebra import Filter, Op

NAME = "swap_filters"
THESIS_RULE = 5


def swap_filters(op: Op) -> tuple[Op, ...]:
    """`(σ_Φ1(σ_Φ2(S)),)` for `σ_Φ2(σ_Φ1(S))` with Φ1 ≠ Φ2; `()` otherwise."""
    if not isinstance(op, Filter) or not isinstance(op.input, Filter):
        return ()
    inner = op.input
    if set(inner.conditions) == set(op.conditions):
        return ()
    return (Filter(Filter(inner.input, op.conditions), inner.conditions),)
