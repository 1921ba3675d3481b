"""Rule 3 of the thesis (merge_filters): the equivalence property (rule_support.py), on plans
with FILTERs over WSCANs and UNIONs (filter_program)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rule_support import EXAMPLES, check_filter_rule
from sgq.sga.rewrite.merge_filters import merge_filters


@settings(max_examples=EXAMPLES)
@given(st.data())
def test_merge_filters_keeps_every_snapshot(data):
    check_filter_rule(data, merge_filters)
