"""`.output` names rule heads only: an output is a derived predicate (specs/semantics.md §3)."""

from __future__ import annotations

from ..errors import UNKNOWN_OUTPUT, DlError
from .context import CheckContext
from .facts import body_occurrences, heads


def check_outputs_defined(ctx: CheckContext) -> list[DlError]:
    """`.output B` with no rule for B -> output 'B' is not the head of any rule"""
    if not ctx.program.rules:
        return []  # check_has_rules says what is wrong
    defined = heads(ctx.program)
    read = body_occurrences(ctx.program)
    errors = []
    for d in ctx.directives_named("output"):
        locs = d.value_locs or (d.loc,) * len(d.values)
        for value, loc in zip(d.values, locs):
            if not isinstance(value, str) or value in defined:
                continue
            hint = ""
            if value in read or value in ctx.facts.inputs:
                hint = (
                    f" ('{value}' is an input label; to output it, add a rule such as "
                    f"Out(x, y) :- {value}(x, y).)"
                )
            errors.append(ctx.error(UNKNOWN_OUTPUT.format(name=value, hint=hint), loc))
    return errors
