"""Rule 1 of the thesis (commute_union): the equivalence property (rule_support.py), on plans
with FILTERs over WSCANs and UNIONs (filter_program)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rule_support import EXAMPLES, check_filter_rule
from sgq.sga.rewrite.commute_union import commute_union


@settings(max_examples=EXAMPLES)
@given(st.data())
def test_commute_union_keeps_every_snapshot(data):
    check_filter_rule(data, commute_union)
