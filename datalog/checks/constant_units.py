"""A vertex constant is an integer or a quoted string (specs/language.md); a number with a unit
(`5m`) is a duration, which only follows `+` or `-` on a side of a time comparison
(`t2 <= t1 + 5m`, specs/semantics.md §4b). The parser keeps `a(x, 5m)`, `x != 2h` and
`t1 < 3h` so that each gets this message, at the constant."""

from __future__ import annotations

from ..ast import Comparison, Const, has_unit, property_variables
from ..errors import UNIT_CONSTANT, DlError
from .context import CheckContext
from .properties import is_property_comparison


def check_constant_units(ctx: CheckContext) -> list[DlError]:
    """`A(x, y) :- a(x, y), x != 5m.` -> '5m' is a number with a unit, but a vertex constant
    has none ..."""
    errors = []
    for rule in ctx.program.rules:
        props = property_variables(rule)  # (a property's constants: checks/properties.py)
        for literal in (rule.head, *rule.body):
            if isinstance(literal, Comparison):
                if is_property_comparison(literal, props):
                    continue
                terms = (literal.left, literal.right)
            else:
                terms = literal.args
            errors += [ctx.error(_message(t), t.loc) for t in terms if has_unit(t)]
    return errors


def _message(term: Const) -> str:
    text = term.value
    negative = text.startswith("-")
    digits = text[1:] if negative else text
    number = digits[: len(digits) - len(digits.lstrip("0123456789"))]
    example = f"t2 >= t1 - {digits}" if negative else f"t2 <= t1 + {digits}"
    return UNIT_CONSTANT.format(
        text=text, number=("-" if negative else "") + number, example=example
    )
