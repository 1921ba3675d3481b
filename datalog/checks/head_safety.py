"""Safety: every head variable appears in a body atom (specs/semantics.md §3). Comparisons only
filter, so a variable seen only in `x = y` does not count."""

from __future__ import annotations

from ..ast import Comparison, Var, property_variables, time_variables
from ..errors import UNSAFE_HEAD, DlError
from .context import CheckContext


def atom_variables(rule) -> set[str]:
    """The variables bound by the rule's body atoms (atoms, closures, path atoms)."""
    return {
        term.name
        for literal in rule.body
        if not isinstance(literal, Comparison)
        for term in literal.args
        if isinstance(term, Var)
    }


def check_head_safety(ctx: CheckContext) -> list[DlError]:
    """`A(x, z) :- a(x, y).` -> head variable 'z' does not appear in any body atom"""
    errors = []
    for rule in ctx.program.rules:
        bound = atom_variables(rule)
        # checks/time_variables.py and checks/properties.py report those
        reported = set(time_variables(rule)) | set(property_variables(rule))
        for term in rule.head.args:
            if isinstance(term, Var) and term.name not in bound and term.name not in reported:
                reported.add(term.name)
                errors.append(ctx.error(UNSAFE_HEAD.format(name=term.name), term.loc))
    return errors
