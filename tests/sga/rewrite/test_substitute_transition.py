"""Rule 16 of the thesis (substitute_transition): the equivalence property (rule_support.py)."""

from __future__ import annotations

from case_generators import DataChooser
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from rule_support import EXAMPLES, mismatch_of, path_program, rule_case
from sgq.sga.rewrite.substitute_transition import substitute_transition


@settings(max_examples=EXAMPLES)
@given(st.data())
def test_substitute_transition_keeps_every_snapshot(data):
    ch = DataChooser(data)
    text = path_program(ch, "letter" if ch.bool(0.7) else "any")
    plan, applied, edges = rule_case(ch, text, substitute_transition, skip=("finite_paths",))
    assume(applied)
    mismatch = mismatch_of(text, plan, edges)
    assert mismatch is None, mismatch
