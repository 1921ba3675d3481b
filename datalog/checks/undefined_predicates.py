"""With `.input`, every body predicate must be a rule head or a listed input label: a name in
neither is a typo or a forgotten rule (specs/language.md)."""

from __future__ import annotations

from ..errors import UNDEFINED, DlError
from .context import CheckContext
from .facts import body_occurrences, heads


def check_predicates_defined(ctx: CheckContext) -> list[DlError]:
    if not ctx.directives_named("input"):
        return []  # without .input every predicate that is never a head is an input label
    defined = heads(ctx.program)
    return [
        ctx.error(UNDEFINED.format(name=name), loc)
        for name, loc in body_occurrences(ctx.program).items()
        if name not in defined and name not in ctx.facts.inputs
    ]
