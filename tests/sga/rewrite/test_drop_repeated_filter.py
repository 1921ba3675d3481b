"""Rule 2 of the thesis (drop_repeated_filter): the equivalence property (rule_support.py), on plans
with FILTERs over WSCANs and UNIONs (filter_program)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rule_support import EXAMPLES, check_filter_rule
from sgq.sga.algebra import Filter
from sgq.sga.rewrite.drop_repeated_filter import drop_repeated_filter


def repeat_filter(op):
    """The rule read right to left: σ_Φ(S) as σ_Φ(σ_Φ(S))."""
    return (Filter(op, op.conditions),) if isinstance(op, Filter) else ()


@settings(max_examples=EXAMPLES)
@given(st.data())
def test_drop_repeated_filter_keeps_every_snapshot(data):
    check_filter_rule(data, drop_repeated_filter, repeat_filter)
