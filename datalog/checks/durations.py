"""Bad durations: an unknown unit, zero or a negative number (specs/semantics.md §2: ω, β ≥ 1).

The parser keeps every duration as written so that this check reports them all at once.
"""

from __future__ import annotations

from ..ast import Comparison, Duration, property_variables
from ..errors import DlError
from ..parser import parse_duration
from .context import CheckContext
from .properties import is_property_comparison


def check_durations(ctx: CheckContext) -> list[DlError]:
    """`.window 10x` -> bad duration '10x': unknown unit 'x' (units: s, m, h, d, w)"""
    errors = []
    for d in ctx.program.directives:
        if d.name not in ("window", "slide"):
            continue  # a number after .output/.input is a misplaced name, not a duration
        for value in d.values:
            if isinstance(value, Duration):
                try:
                    parse_duration(value.text)
                except ValueError as exc:
                    errors.append(ctx.error(str(exc), value.loc))
    for rule in ctx.program.rules:  # offsets of time comparisons: `t1 + 1h`, `t2 - 5 > t1`
        props = property_variables(rule)  # (a property's offsets: checks/properties.py)
        for literal in rule.body:
            if not isinstance(literal, Comparison) or is_property_comparison(literal, props):
                continue
            for offset in (literal.left_offset, literal.offset):
                if offset is None:
                    continue
                try:
                    parse_duration(offset.text)
                except ValueError as exc:
                    errors.append(ctx.error(str(exc), offset.loc))
    return errors
