"""Input labels (EDB) never appear in a head (specs/semantics.md §3): a head named like a label
listed in `.input` or given a window by `.window ... for` is an error."""

from __future__ import annotations

from ..errors import HEAD_IS_INPUT, DlError
from .context import CheckContext
from .facts import heads


def check_heads_not_inputs(ctx: CheckContext) -> list[DlError]:
    facts = ctx.facts
    errors = []
    for name, loc in heads(ctx.program).items():
        if name in facts.inputs:
            where = f"listed in .input on line {facts.input_lines.get(name, 0)}"
        elif name in facts.label_windows:
            duration, _ = facts.label_windows[name]
            line = duration.loc.line if duration.loc else 0
            where = f"given a window by '.window ... for' on line {line}"
        else:
            continue
        errors.append(ctx.error(HEAD_IS_INPUT.format(name=name, where=where), loc))
    return errors
