"""A rule body joins at most `MAX_BODY_ATOMS` atoms (specs/language.md, "Limits").

The engine plans a PATTERN's join order per arrival over its atoms
(incremental/operators/join_plan.py), at a cost that grows as a power of their number: a
hundred atoms take seconds before the first edge, two hundred minutes. So a longer body is
refused where it is written, on its first atom past the bound; comparisons do not count (they
filter, they do not join). A long join is written as rules over parts of it.
"""

from __future__ import annotations

from ..ast import Comparison
from ..errors import BODY_TOO_LONG, DlError
from .context import CheckContext

#: atoms (plain, closures, path atoms) one rule body may join
MAX_BODY_ATOMS = 64


def check_body_size(ctx: CheckContext) -> list[DlError]:
    """`A(x, y) :- a(x, z1), a(z1, z2), ...` (65 atoms) -> a rule body joins at most 64 atoms"""
    errors = []
    for rule in ctx.program.rules:
        atoms = [lit for lit in rule.body if not isinstance(lit, Comparison)]
        if len(atoms) > MAX_BODY_ATOMS:
            message = BODY_TOO_LONG.format(limit=MAX_BODY_ATOMS, count=len(atoms))
            errors.append(ctx.error(message, atoms[MAX_BODY_ATOMS].loc))
    return errors
