"""Rule 2 of the thesis (6.2.1), idempotence of FILTER: σ_Φ(σ_Φ(S)) ≡ σ_Φ(S).

    FILTER[src = "1"]        ->   FILTER[src = "1"]
      FILTER[src = "1"]             WSCAN[a]
        WSCAN[a]

A tuple passes the outer FILTER of the same predicate whenever it passed the inner one; a
FILTER leaves intervals as they are (Def 31), so the snapshots are equal (Lemma 2). The same
holds for a condition repeated within one FILTER's conjunction, which is dropped too. It pays
one predicate test and one push per tuple (eq. 6.19).
"""

from __future__ import annotations

from ..algebra import Filter, Op

NAME = "drop_repeated_filter"
THESIS_RULE = 2


def drop_repeated_filter(op: Op) -> tuple[Op, ...]:
    """`(σ_Φ(S),)` for `σ_Φ(σ_Φ(S))` (the same conditions, in any order), or the FILTER with
    its repeated conditions dropped; `()` otherwise."""
    if not isinstance(op, Filter):
        return ()
    inner = op.input
    if isinstance(inner, Filter) and set(inner.conditions) == set(op.conditions):
        return (inner,)
    unique = tuple(dict.fromkeys(op.conditions))
    if len(unique) < len(op.conditions):
        return (Filter(op.input, unique),)
    return ()
