"""The rule tests can fail: rules that are wrong in the ways a rule can be (the halves of a
concatenation swapped, a grouping that keeps the wrong variable, a condition dropped) are
caught by rule_support's judge on a few seeded random cases (slow: run with -m slow)."""

from __future__ import annotations

import attrs
import pytest
from case_generators import RandomChooser
from rule_support import (
    filter_case,
    filter_program,
    join_program,
    mismatch_of,
    path_program,
    rule_case,
)
from sgq.sga.algebra import Filter, Pattern, WScan
from sgq.sga.rewrite.associate_pattern import associate_pattern
from sgq.sga.rewrite.decompose_concatenation import decompose_concatenation


def _swap_halves(op):
    return tuple(
        attrs.evolve(alt, inputs=alt.inputs[::-1]) if isinstance(alt, Pattern) else alt
        for alt in decompose_concatenation(op)
    )


def _drop_conditions(op):
    return tuple(attrs.evolve(alt, conditions=()) for alt in associate_pattern(op))


def _window_drops_filter(op):
    """Rule 12 gone wrong: the FILTER under the window is lost."""
    if isinstance(op, Filter) and isinstance(op.input, WScan):
        return (op.input,)
    return ()


def _filter_negated(op):
    """Rule 3 gone wrong: merging two FILTERs negates the outer conjunction's first test."""
    if isinstance(op, Filter) and isinstance(op.input, Filter):
        c = op.conditions[0]
        flipped = attrs.evolve(c, op="!=" if c.op == "=" else "=")
        return (Filter(op.input.input, op.input.conditions + (flipped,) + op.conditions[1:]),)
    return ()


def _caught(make_text, rule, skip, cases: int = 60, case=None) -> bool:
    for seed in range(cases):
        ch = RandomChooser(seed)
        text = make_text(ch)
        if case is not None:
            plan, applied, edges = case(ch, text, rule)
        else:
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


@pytest.mark.slow
def test_filter_lost_under_the_window_is_caught():
    assert _caught(filter_program, _window_drops_filter, (), case=filter_case)


@pytest.mark.slow
def test_negated_filter_merge_is_caught():
    assert _caught(filter_program, _filter_negated, (), case=filter_case)
