"""Rule 6 of the thesis (push_filter_into_union): the equivalence property (rule_support.py), on plans
with FILTERs over WSCANs and UNIONs (filter_program)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rule_support import EXAMPLES, check_filter_rule
from sgq.sga.rewrite.push_filter_into_union import push_filter_into_union


@settings(max_examples=EXAMPLES)
@given(st.data())
def test_push_filter_into_union_keeps_every_snapshot(data):
    check_filter_rule(data, push_filter_into_union)
