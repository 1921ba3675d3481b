"""Rule 12 of the thesis (6.2.2), FILTER push-down through WSCAN:
W_ω(σ_φ(S)) ≡ σ_φ(W_ω(S)), both ways.

    FILTER[src = "1"]              ->   WSCAN[a](ω=10, β=1; src = "1")
      WSCAN[a](ω=10, β=1)

WSCAN sets validity intervals only and FILTER tests endpoints only, so they commute; a `+`
and a `-` edge of one key pass or fail alike, so explicit deletions commute too. Pushed
below the window, the FILTER drops edges before WSCAN coalesces them: the window keeps no
coverage for edges no consumer wants (incremental/operators/wscan.py), which is the thesis's
reason for the rule. A label read with and without the FILTER is then scanned twice.
"""

from __future__ import annotations

import attrs

from ..algebra import Filter, Op, WScan

NAME = "push_filter_into_wscan"
THESIS_RULE = 12


def push_filter_into_wscan(op: Op) -> tuple[Op, ...]:
    """`(W_ω(σ_φ(S)),)` for a FILTER of a WSCAN, `(σ_φ(W_ω(S)),)` for a WSCAN with
    conditions; `()` otherwise."""
    if isinstance(op, Filter) and isinstance(op.input, WScan):
        scan = op.input
        conditions = tuple(dict.fromkeys(scan.conditions + op.conditions))
        return (attrs.evolve(scan, conditions=conditions),)
    if isinstance(op, WScan) and op.conditions:
        return (Filter(attrs.evolve(op, conditions=()), op.conditions),)
    return ()
