"""Comparing property values (specs/semantics.md §4c): numbers with numbers, strings with
strings by `=` and `!=` only; anything else is not comparable, and a comparison of values that
are not comparable does not hold (whatever its operator, `!=` included)."""

from __future__ import annotations

import operator
from collections.abc import Callable

PropValue = int | float | str

_OPS: dict[str, Callable[[object, object], bool]] = {
    "=": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}

#: the Python types of values that compare as numbers (bool is not one: no reader makes it)
NUMBERS = (int, float)


def holds(
    op: str, left: object, right: object, offset: int | float = 0, numbers: bool = False
) -> bool:
    """Whether `left op right + offset` holds on property values: both numbers, or both
    strings under `=`/`!=` with no offset (`numbers`: a comparison written with offsets that
    cancel); else False. O(1)."""
    if type(left) is str:
        if type(right) is not str or offset or numbers or (op != "=" and op != "!="):
            return False
        return _OPS[op](left, right)
    if type(left) not in NUMBERS or type(right) not in NUMBERS:
        return False
    return _OPS[op](left, right + offset)


def value_text(value: PropValue) -> str:
    """A value as a program writes it: `15`, `1.5`, `"AA"`."""
    if type(value) is str:
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)
