"""`.output` and `.input` take one or more predicate names (`.input likes, "rdf:type"`)."""

from __future__ import annotations

from ..ast import Duration
from ..errors import DURATION_NOT_NAME, NEEDS_NAMES, DlError
from .context import CheckContext

EXAMPLES = {"output": "Answer", "input": "likes, follows"}


def check_name_values(ctx: CheckContext) -> list[DlError]:
    """No names at all, or a number where a predicate name belongs."""
    errors = []
    for d in ctx.program.directives:
        if d.name not in EXAMPLES:
            continue
        if not d.values:
            errors.append(
                ctx.error(NEEDS_NAMES.format(name=d.name, example=EXAMPLES[d.name]), d.loc)
            )
            continue
        locs = d.value_locs or (d.loc,) * len(d.values)
        for value, loc in zip(d.values, locs):
            if isinstance(value, Duration):
                errors.append(
                    ctx.error(DURATION_NOT_NAME.format(name=d.name, value=value.text), loc)
                )
    return errors
