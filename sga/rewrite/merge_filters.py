"""Rule 3 of the thesis (6.2.1), conjunctive FILTER predicates:
σ_Φ2(σ_Φ1(S)) ≡ σ_{Φ1 ∧ Φ2}(S), both ways.

    FILTER[trg != "2"]            ->   FILTER[src = "1", trg != "2"]
      FILTER[src = "1"]                  WSCAN[a]
        WSCAN[a]

A tuple passes both FILTERs iff it satisfies both conjunctions; intervals pass unchanged
(Def 31; Lemma 2). Merging saves one push per tuple that passes the inner FILTER (eq. 6.19);
splitting a conjunction lets one part move where the other cannot (rules 6, 12).
"""

from __future__ import annotations

from ..algebra import Filter, Op

NAME = "merge_filters"
THESIS_RULE = 3


def merge_filters(op: Op) -> tuple[Op, ...]:
    """The FILTER of a FILTER as one FILTER of both conjunctions, and a FILTER of two or more
    conditions split into a FILTER of its first k over one of the rest (every k)."""
    if not isinstance(op, Filter):
        return ()
    out: list[Op] = []
    if isinstance(op.input, Filter):
        merged = tuple(dict.fromkeys(op.input.conditions + op.conditions))
        out.append(Filter(op.input.input, merged))
    for k in range(1, len(op.conditions)):
        out.append(Filter(Filter(op.input, op.conditions[:k]), op.conditions[k:]))
    return tuple(dict.fromkeys(out))
