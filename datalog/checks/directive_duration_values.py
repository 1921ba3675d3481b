"""`.window` and `.slide` take exactly one duration (`.window 30d`, `.window 7d for a, b`)."""

from __future__ import annotations

from ..ast import Duration
from ..errors import NAME_NOT_DURATION, NEEDS_DURATION, ONE_DURATION, DlError
from .context import CheckContext

EXAMPLES = {"window": "24h", "slide": "1h"}


def check_duration_values(ctx: CheckContext) -> list[DlError]:
    """A missing duration, a name where a duration belongs, or more than one value."""
    errors = []
    for d in ctx.program.directives:
        if d.name not in EXAMPLES:
            continue
        locs = d.value_locs or (d.loc,) * len(d.values)
        if not d.values:
            errors.append(
                ctx.error(NEEDS_DURATION.format(name=d.name, example=EXAMPLES[d.name]), d.loc)
            )
            continue
        first = d.values[0]
        if not isinstance(first, Duration):
            errors.append(ctx.error(NAME_NOT_DURATION.format(name=d.name, value=first), locs[0]))
        if len(d.values) > 1:
            errors.append(ctx.error(ONE_DURATION.format(name=d.name, count=len(d.values)), locs[1]))
    return errors
