"""Rule 14 of the thesis (decompose_concatenation): the equivalence property (rule_support.py)."""

from __future__ import annotations

from case_generators import DataChooser
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rule_support import EXAMPLES, mismatch_of, path_program, rule_case
from sgq.sga.rewrite.decompose_concatenation import decompose_concatenation


@settings(max_examples=EXAMPLES)
@given(st.data())
def test_decompose_concatenation_keeps_every_snapshot(data):
    ch = DataChooser(data)
    text = path_program(ch, "closure" if ch.bool(0.5) else "concat")
    plan, applied, edges = rule_case(ch, text, decompose_concatenation, skip=("finite_paths",))
    assume(applied)
    mismatch = mismatch_of(text, plan, edges)
    assert mismatch is None, mismatch
