"""Only `.window` takes a `for` list (per-label windows, thesis Example 5); the slide is one
for all windows (specs/semantics.md §2)."""

from __future__ import annotations

from ..errors import NO_FOR, DlError
from .context import CheckContext
from .directive_unknown import KNOWN

REASONS = {"slide": " (all windows share one slide)"}


def check_for_lists(ctx: CheckContext) -> list[DlError]:
    """`.slide 1h for a` -> '.slide' takes no 'for' list (all windows share one slide)"""
    return [
        ctx.error(NO_FOR.format(name=d.name, reason=REASONS.get(d.name, "")), d.for_loc or d.loc)
        for d in ctx.program.directives
        if d.labels and d.name in KNOWN and d.name != "window"
    ]
