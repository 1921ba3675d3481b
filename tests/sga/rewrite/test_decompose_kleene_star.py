"""Rule 17 of the thesis (decompose_kleene_star): the equivalence property (rule_support.py)."""

from __future__ import annotations

from case_generators import DataChooser
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rule_support import EXAMPLES, mismatch_of, path_program, rule_case
from sgq.sga.rewrite.decompose_kleene_star import decompose_kleene_star


@settings(max_examples=EXAMPLES)
@given(st.data())
def test_decompose_kleene_star_keeps_every_snapshot(data):
    ch = DataChooser(data)
    text = path_program(ch, "closure")
    plan, applied, edges = rule_case(ch, text, decompose_kleene_star, skip=("finite_paths",))
    assume(applied)
    mismatch = mismatch_of(text, plan, edges)
    assert mismatch is None, mismatch
