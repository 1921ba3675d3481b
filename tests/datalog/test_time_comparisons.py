"""Time comparisons written every way specs/language.md allows (a duration added or taken on
either side, with or without a unit, with or without spaces): each parses, prints and parses
again to the same AST, reads as the one normal form `left op right + shift` the planner takes,
and leaves closures (`p+(x, y)`) closures."""

from __future__ import annotations

import pytest
from sgq.datalog import ast
from sgq.datalog.check import check_text
from sgq.datalog.parser import parse
from sgq.datalog.printer import print_program
from sgq.sga.algebra import TimeCondition
from sgq.sga.translate import translate

ATOMS = "pays(c, m)@t1, paid(m, b)@t2"

# (comparison as written, its normal form `left op right + shift`)
FORMS = [
    ("t2 <= t1 + 1h", ("t2", "<=", "t1", 3600)),
    ("t1 > t2 - 30", ("t1", ">", "t2", -30)),
    ("t1 + 2 < t2", ("t1", "<", "t2", -2)),
    ("t1 + 1h >= t2", ("t1", ">=", "t2", -3600)),
    ("t2 - 1m >= t1", ("t2", ">=", "t1", 60)),
    ("t2 - 90 >= t1", ("t2", ">=", "t1", 90)),
    ("t2-6>=t1", ("t2", ">=", "t1", 6)),
    ("t1+2<t2", ("t1", "<", "t2", -2)),
    ("t1+1h<t2-30m", ("t1", "<", "t2", -5400)),
    ("t1 + 1h <= t2 - 30m", ("t1", "<=", "t2", -5400)),
    ("t1 - 2 > t2 + 3", ("t1", ">", "t2", 5)),
    ("t2 + 5 = t1", ("t2", "=", "t1", -5)),
    ("t1 + 1 != t2", ("t1", "!=", "t2", -1)),
    ("t1 + 2d < t2", ("t1", "<", "t2", -172800)),
    ("t1 + 1w > t2", ("t1", ">", "t2", -604800)),
    ("t1 + 30s <= t2 + 30s", ("t1", "<=", "t2", 0)),
    ("t1 < t2", ("t1", "<", "t2", 0)),
]


def _rule(comparison: str) -> str:
    return f".window 1w\nAnswer(c, b) :- {ATOMS}, {comparison}.\n"


@pytest.mark.parametrize(("written", "normal"), FORMS, ids=[w for w, _ in FORMS])
def test_every_form_parses_to_its_normal_form(written, normal):
    comparison = parse(_rule(written)).rules[0].body[-1]
    assert isinstance(comparison, ast.Comparison)
    left, op, right, shift = normal
    assert (comparison.left, comparison.op, comparison.right) == (ast.Var(left), op, ast.Var(right))
    assert comparison.shift == shift


@pytest.mark.parametrize(("written", "normal"), FORMS, ids=[w for w, _ in FORMS])
def test_every_form_prints_and_parses_again(written, normal):
    program = parse(_rule(written))
    text = print_program(program)
    assert parse(text) == program, text
    assert print_program(parse(text)) == text


@pytest.mark.parametrize(("written", "normal"), FORMS, ids=[w for w, _ in FORMS])
def test_the_plan_holds_the_normal_form(written, normal):
    plan = translate(check_text(_rule(written)))
    conditions = [c for op in plan.nodes() for c in getattr(op, "time_conditions", ())]
    assert conditions == [TimeCondition(*normal)]


def test_spaces_are_optional():
    spaced = parse(_rule("t2 - 6 >= t1, t1 + 2 < t2, t1 + 1h >= t2 - 5"))
    tight = parse(_rule("t2-6>=t1,t1+2<t2,t1+1h>=t2-5"))
    assert spaced == tight


def test_the_side_of_a_duration_is_kept_as_written():
    left = parse(_rule("t1 + 2 < t2")).rules[0].body[-1]
    right = parse(_rule("t2 > t1 + 2")).rules[0].body[-1]
    assert (left.left_offset.text, left.left_offset_op, left.offset) == ("2", "+", None)
    assert (right.offset.text, right.offset_op, right.left_offset) == ("2", "+", None)
    assert left != right  # printed as written: `t1 + 2 < t2` stays on the left


def test_closures_stay_closures_beside_offsets():
    lits = (
        parse(
            '.window 10\nA(x, y) :- p+(x, z)@t1, "q r"+(z, w), simple s+(w, v), u*(v, y)@t2, '
            "t1+1<t2, t2 - 1 >= t1."
        )
        .rules[0]
        .body
    )
    assert [type(lit).__name__ for lit in lits] == [
        "Closure",
        "Closure",
        "Closure",
        "Closure",
        "Comparison",
        "Comparison",
    ]
    assert [lit.op for lit in lits[:4]] == ["+", "+", "+", "*"]
    assert lits[2].simple and lits[1].pred == "q r"
    # `p + (x, y)` with spaces is still the closure of p
    assert parse("A(x, y) :- p + (x, y).").rules[0].body[0] == ast.Closure(
        "p", "+", (ast.Var("x"), ast.Var("y"))
    )


def test_a_number_with_a_unit_where_a_constant_stands_is_kept_for_the_checker():
    atom, comparison = parse("A(x, y) :- a(x, 5m), x != -2h.").rules[0].body
    assert atom.args[1] == ast.Const("5m", quoted=False) and ast.has_unit(atom.args[1])
    assert comparison.right == ast.Const("-2h", quoted=False) and ast.has_unit(comparison.right)
    assert not ast.has_unit(ast.Const("5m")) and not ast.has_unit(ast.Const("-5", quoted=False))
    text = print_program(parse("A(x, y) :- a(x, 5m), x != -2h."))
    assert text == "A(x, y) :- a(x, 5m), x != -2h.\n"
