"""Every input label needs a window: from `.window`, `.window ... for`, or --window
(specs/semantics.md §2: with neither, the program is rejected)."""

from __future__ import annotations

from ..errors import NO_LABEL_WINDOW, NO_WINDOW, DlError
from .context import CheckContext
from .facts import body_occurrences, heads


def check_window_present(ctx: CheckContext) -> list[DlError]:
    if not ctx.program.rules or ctx.window is not None or ctx.facts.window is not None:
        return []
    has_window = any(d.name == "window" for d in ctx.program.directives)
    if not has_window:
        return [ctx.error(NO_WINDOW, None)]
    # only per-label windows (or a malformed .window, reported on its own): name the uncovered
    if not ctx.facts.label_windows:
        return []
    defined = heads(ctx.program)
    errors = []
    for name, loc in body_occurrences(ctx.program).items():
        if name not in defined and name not in ctx.facts.label_windows:
            errors.append(ctx.error(NO_LABEL_WINDOW.format(label=name), loc))
    return errors
