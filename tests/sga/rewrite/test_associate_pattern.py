"""Rule 8 of the thesis (associate_pattern): the equivalence property (rule_support.py)."""

from __future__ import annotations

from case_generators import DataChooser
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rule_support import EXAMPLES, join_program, mismatch_of, rule_case
from sgq.sga.rewrite.associate_pattern import associate_pattern


@settings(max_examples=EXAMPLES)
@given(st.data())
def test_associate_pattern_keeps_every_snapshot(data):
    ch = DataChooser(data)
    text = join_program(ch)
    plan, applied, edges = rule_case(
        ch, text, associate_pattern, skip=("shared_chains",) if ch.bool(0.5) else ()
    )
    assume(applied)
    mismatch = mismatch_of(text, plan, edges)
    assert mismatch is None, mismatch
