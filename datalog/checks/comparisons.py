"""Comparisons `x = y`, `x != y` of ordinary variables filter bindings made by atoms (FILTER, specs/semantics.md §3): each
variable must appear in a body atom, `_` cannot be compared, and two constants compare to a
fixed truth value."""

from __future__ import annotations

from ..ast import Anon, Comparison, Const, Var, property_variables, time_variables
from ..errors import ANON_COMPARED, CONSTANTS_COMPARED, UNBOUND_COMPARED, DlError
from .context import CheckContext
from .head_safety import atom_variables
from .properties import is_property_comparison
from .time_variables import is_time_comparison


def check_comparisons(ctx: CheckContext) -> list[DlError]:
    """`A(x,y) :- a(x,y), x != z.` -> variable 'z' is compared but appears in no body atom"""
    errors = []
    for rule in ctx.program.rules:
        bound = atom_variables(rule)
        times = time_variables(rule)
        props = property_variables(rule)
        for literal in rule.body:
            if not isinstance(literal, Comparison) or is_time_comparison(literal, times, props):
                continue  # time comparisons: checks/time_variables.py
            if is_property_comparison(literal, props):
                continue  # checks/properties.py
            sides = (literal.left, literal.right)
            if all(isinstance(t, Const) for t in sides):
                errors.append(ctx.error(CONSTANTS_COMPARED, literal.loc))
                continue
            for term in sides:
                if isinstance(term, Anon):
                    errors.append(ctx.error(ANON_COMPARED, term.loc))
                elif isinstance(term, Var) and term.name not in bound:
                    errors.append(ctx.error(UNBOUND_COMPARED.format(name=term.name), term.loc))
    return errors
