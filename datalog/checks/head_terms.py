"""A head holds variables only: `_` would be an unbound output and a constant is a filter
that belongs in the body (`x = "bob"`). Decision recorded in errors.py's table."""

from __future__ import annotations

from ..ast import Anon, Const, has_unit
from ..errors import HEAD_ANON, HEAD_CONST, DlError
from ..printer import term_text
from .context import CheckContext


def check_head_terms(ctx: CheckContext) -> list[DlError]:
    errors = []
    for rule in ctx.program.rules:
        for term in rule.head.args:
            if isinstance(term, Anon):
                errors.append(ctx.error(HEAD_ANON, term.loc))
            elif isinstance(term, Const) and not has_unit(term):  # (checks/constant_units.py)
                errors.append(ctx.error(HEAD_CONST.format(const=term_text(term)), term.loc))
    return errors
