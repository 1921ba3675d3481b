"""Property predicates written every way specs/language.md allows (braces on input atoms,
tests on path labels, comparisons of property variables with numbers on either side): each
parses, prints and parses again to the same AST, checks, and lowers to the WSCAN test or
PATTERN condition its meaning asks for."""

from __future__ import annotations

import pytest
from sgq.datalog.check import check_text
from sgq.datalog.parser import parse
from sgq.datalog.printer import print_program
from sgq.sga.algebra import Pattern, PropertyCondition, PropertyTest, WScan
from sgq.sga.translate import translate

HEADER = ".window 1d\n.output A\n"

# (body as written, the WSCAN tests it gives, the PATTERN's property conditions)
FORMS = [
    ("f(a, b){delay: d}, d < 15", {("delay", "<", 15)}, ()),
    ("f(a, b){delay:d},d<15", {("delay", "<", 15)}, ()),
    ("f(a, b){delay: d}, 15 > d", {("delay", "<", 15)}, ()),
    ("f(a, b){delay: d}, d - 5 <= 10", {("delay", "<=", 15)}, ()),
    ("f(a, b){delay: d}, d + 2.5 >= 1", {("delay", ">=", -1.5)}, ()),
    ("f(a, b){delay: d}, d != 2.5", {("delay", "!=", 2.5)}, ()),
    ('f(a, b){carrier: "AA"}', {("carrier", "=", "AA")}, ()),
    ('f(a, b){carrier: c}, c != "UA"', {("carrier", "!=", "UA")}, ()),
    ("f(a, b){n: 15}", {("n", "=", 15)}, ()),
    ("f(a, b){n: -3}", {("n", "=", -3)}, ()),
    ("f(a, b){gate: _}", {("gate", "has", None)}, ()),
    ('f(a, b){"dep delay": d}, d > 0', {("dep delay", ">", 0)}, ()),
    ("[f{delay < 15}+](a, b)", {("delay", "<", 15)}, ()),
    (
        '[(f{delay >= 3, carrier = "AA"} | g)*](a, b)',
        {("delay", ">=", 3), ("carrier", "=", "AA")},
        (),
    ),
    (
        "f(a, x){delay: d1}, f(x, b){delay: d2}, d2 > d1 + 30",
        set(),
        (PropertyCondition("d2", ">", "d1", 30, numbers=True),),
    ),
    (
        "f(a, x){delay: d1}, f(x, b){delay: d2}, d1 + 1 <= d2 - 2",
        set(),
        (PropertyCondition("d1", "<=", "d2", -3, numbers=True),),
    ),
    ("f(a, x){k: v}, g(x, b){k: v}", set(), ()),
]


def _program(body: str) -> str:
    return f"{HEADER}A(a, b) :- {body}.\n"


@pytest.mark.parametrize(("body", "tests", "conds"), FORMS, ids=[b for b, _t, _c in FORMS])
def test_every_form_prints_parses_again_and_lowers(body, tests, conds):
    program = parse(_program(body))
    text = print_program(program)
    assert parse(text) == program, text
    assert print_program(parse(text)) == text
    plan = translate(check_text(text))
    scans = [n for n in plan.nodes() if isinstance(n, WScan) and n.source]
    assert {(t.key, t.op, t.value) for s in scans for t in s.properties} == tests
    patterns = [n for n in plan.nodes() if isinstance(n, Pattern)]
    assert tuple(c for p in patterns for c in p.property_conditions) == conds


def test_a_float_constant_is_kept_in_its_shortest_form():
    (rule,) = parse(_program("f(a, b){w: 1.50}")).rules
    assert print_program(parse(_program("f(a, b){w: 1.50}"))).endswith("{w: 1.5}.\n")
    (arg,) = rule.body[0].props
    assert arg.value.value == "1.5"


def test_integer_and_string_constants_are_different_values():
    scans = translate(check_text(_program('f(a, b){n: 15}, g(a, b){n: "15"}'))).nodes()
    values = [t.value for n in scans if isinstance(n, WScan) for t in n.properties]
    assert values == [15, "15"] and PropertyTest("n", "=", 15) != PropertyTest("n", "=", "15")


def test_a_quoted_number_is_another_test():
    """Unlike vertex constants (`42` is `"42"`), a property's `15` and `"15"` differ, in the
    AST as in the plan."""
    quoted, bare = (parse(_program(f"[f{{d = {c}}}+](a, b)")) for c in ('"2"', "2"))
    assert quoted != bare
    assert parse(_program('f(a, b){d: "2"}')) != parse(_program("f(a, b){d: 2}"))
