"""Rule 9 of the thesis (push_filter_into_pattern): the equivalence property (rule_support.py)."""

from __future__ import annotations

from case_generators import DataChooser
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rule_support import EXAMPLES, join_program, mismatch_of, rule_case
from sgq.sga.rewrite.push_filter_into_pattern import push_filter_into_pattern


@settings(max_examples=EXAMPLES)
@given(st.data())
def test_push_filter_into_pattern_keeps_every_snapshot(data):
    ch = DataChooser(data)
    text = join_program(ch)
    plan, applied, edges = rule_case(ch, text, push_filter_into_pattern, skip=())
    assume(applied)
    mismatch = mismatch_of(text, plan, edges)
    assert mismatch is None, mismatch
