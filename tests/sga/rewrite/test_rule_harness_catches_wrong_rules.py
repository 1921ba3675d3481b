"""The rule tests can fail: rules that are wrong in the ways a rule can be (the halves of a
concatenation swapped, a grouping that keeps the wrong variable, a condition dropped) are
caught by rule_support's judge on a few seeded random cases (slow: run with -m slow)."""

from __future__ import annotations

import attrs
import pytest
from case_generators import RandomChooser
from rule_support import join_program, mismatch_of, path_program, rule_case
from sgq.sga.algebra import Pattern
from sgq.sga.rewrite.associate_pattern import associate_pattern
from sgq.sga.rewrite.decompose_concatenation import decompose_concatenation


def _swap_halves(op):
    return tuple(
        attrs.evolve(alt, inputs=alt.inputs[::-1]) if isinstance(alt, Pattern) else alt
        for alt in decompose_concatenation(op)
    )


def _drop_conditions(op):
    return tuple(attrs.evolve(alt, conditions=()) for alt in associate_pattern(op))


def _caught(make_text, rule, skip, cases: int = 60) -> bool:
    for seed in range(cases):
        ch = RandomChooser(seed)
        text = make_text(ch)
        plan, applied, edges = rule_case(ch, text, rule, skip=skip)
        if applied and mismatch_of(text, plan, edges) is not None:
            return True
    return False


@pytest.mark.slow
def test_swapped_concatenation_is_caught():
    assert _caught(lambda ch: path_program(ch, "concat"), _swap_halves, ("finite_paths",))


@pytest.mark.slow
def test_dropped_condition_is_caught():
    assert _caught(join_program, _drop_conditions, ())
